// German: "in 2 Stunden", "in einer halben Stunde", "in 3 Tagen", "in 1 Std. 30 Min."; "morgen um 9", "heute Abend".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const de: WhenLanguage = {
  chrono: chrono.de.casual,
  relative: relativeReader({
    rewrites: [
      [/(?:eine|einer) dreiviertelstunde/g, '45 minuten'],
      [/(?:eine|einer) viertelstunde/g, '15 minuten'],
      [/(?:eine|einer) halben? stunde/g, '30 minuten'],
      [/(?:anderthalb|eineinhalb) stunden?/g, '90 minuten'],
    ],
    numbers: {
      ein: 1,
      eine: 1,
      einer: 1,
      einem: 1,
      einen: 1,
      zwei: 2,
      drei: 3,
      vier: 4,
      fünf: 5,
      sechs: 6,
      sieben: 7,
      acht: 8,
      neun: 9,
      zehn: 10,
      elf: 11,
      zwölf: 12,
      fünfzehn: 15,
      zwanzig: 20,
      dreißig: 30,
      vierzig: 40,
      fünfzig: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: String.raw`sekunden?|sek\.?|s`,
      m: String.raw`minuten?|min\.?|m`,
      h: String.raw`stunden?|std\.?|h`,
      d: 'tagen|tage|tag|d',
      w: String.raw`wochen?|wo\.?|w`,
    },
    joiner: '(?:,|und)?',
    phrases: ['^in {parts}(?: ab jetzt)?$', '^{parts} ab jetzt$'],
  }),
  dayPartHour: (text) => (/abend|nacht/.test(text) ? 20 : /nachmittag/.test(text) ? 15 : undefined),
};
