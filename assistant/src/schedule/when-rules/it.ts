// Italian: "tra 2 ore", "fra mezz'ora", "tra un'ora e mezza", "tra 3 giorni"; "domani alle 9", "stasera".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const it: WhenLanguage = {
  chrono: chrono.it.casual,
  relative: relativeReader({
    rewrites: [
      [/’/g, "'"],
      [/un'ora e mezz[ao]/g, '90 minuti'],
      [/mezz'ora|mezzora|mezza ora/g, '30 minuti'],
      [/tre quarti d'ora/g, '45 minuti'],
      [/un quarto d'ora/g, '15 minuti'],
      [/un'ora/g, '1 ora'],
    ],
    numbers: {
      un: 1,
      uno: 1,
      una: 1,
      due: 2,
      tre: 3,
      quattro: 4,
      cinque: 5,
      sei: 6,
      sette: 7,
      otto: 8,
      nove: 9,
      dieci: 10,
      undici: 11,
      dodici: 12,
      quindici: 15,
      venti: 20,
      trenta: 30,
      quaranta: 40,
      cinquanta: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: 'secondi|secondo|sec|s',
      m: 'minuti|minuto|min|m',
      h: 'ore|ora|h',
      d: 'giorni|giorno|gg|g',
      w: 'settimane|settimana|sett',
    },
    joiner: '(?:,|e)?',
    phrases: ['^(?:tra|fra) {parts}$', '^{parts} da adesso$'],
  }),
  dayPartHour: (text) => (/sera|notte/.test(text) ? 20 : /pomeriggio/.test(text) ? 15 : undefined),
};
