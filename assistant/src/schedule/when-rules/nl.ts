// Dutch: "over 2 uur", "over een half uur", "over anderhalf uur", "over 3 dagen"; "morgen om 9 uur", "vanavond".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const nl: WhenLanguage = {
  chrono: chrono.nl.casual,
  relative: relativeReader({
    rewrites: [
      [/anderhalf uur/g, '90 minuten'],
      [/(?:een )?half uur/g, '30 minuten'],
      [/drie kwartier/g, '45 minuten'],
      [/(?:een )?kwartier/g, '15 minuten'],
    ],
    numbers: {
      een: 1,
      één: 1,
      twee: 2,
      drie: 3,
      vier: 4,
      vijf: 5,
      zes: 6,
      zeven: 7,
      acht: 8,
      negen: 9,
      tien: 10,
      elf: 11,
      twaalf: 12,
      vijftien: 15,
      twintig: 20,
      dertig: 30,
      veertig: 40,
      vijftig: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: 'seconden?|sec|s',
      m: 'minuten?|min|m',
      h: 'uur|uren|u|h',
      d: 'dagen|dag|d',
      w: 'weken|week|w',
    },
    joiner: '(?:,|en)?',
    phrases: ['^over {parts}$', '^{parts} vanaf nu$'],
  }),
  dayAfterTomorrow: { phrase: /overmorgen/i, tomorrow: 'morgen' },
  dayPartHour: (text) => (/avond|nacht/.test(text) ? 20 : /middag/.test(text) ? 15 : undefined),
};
