// French: "dans 2 heures", "dans une demi-heure", "dans 1h30", "dans 3 jours"; "demain à 9h", "ce soir".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const fr: WhenLanguage = {
  chrono: chrono.fr.casual,
  relative: relativeReader({
    rewrites: [
      [/’/g, "'"],
      [/une heure et demie/g, '90 minutes'],
      [/(?:une )?demi-? ?heure/g, '30 minutes'],
      [/trois quarts d'heure/g, '45 minutes'],
      [/un quart d'heure/g, '15 minutes'],
      [/(\d+)\s*h\s*(\d{2})(?!\d)/g, '$1 h $2 min'],
    ],
    numbers: {
      un: 1,
      une: 1,
      deux: 2,
      trois: 3,
      quatre: 4,
      cinq: 5,
      six: 6,
      sept: 7,
      huit: 8,
      neuf: 9,
      dix: 10,
      onze: 11,
      douze: 12,
      quinze: 15,
      vingt: 20,
      trente: 30,
      quarante: 40,
      cinquante: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: 'secondes?|secs?|s',
      m: 'minutes?|mins?|mn|m',
      h: 'heures?|hrs?|h',
      d: 'jours?|j',
      w: 'semaines?|sem',
    },
    joiner: '(?:,|et)?',
    phrases: ['^dans {parts}$', "^d'ici {parts}$", '^{parts} plus tard$'],
  }),
  dayAfterTomorrow: { phrase: /après-demain/i, tomorrow: 'demain' },
  dayPartHour: (text) => (/soir|nuit/.test(text) ? 20 : /apr[eè]s-? ?midi|aprem/.test(text) ? 15 : undefined),
};
