// Portuguese: "em 2 horas", "daqui a meia hora", "em uma hora e meia", "em 3 dias"; "amanhã às 9", "hoje à noite".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const pt: WhenLanguage = {
  chrono: chrono.pt.casual,
  relative: relativeReader({
    rewrites: [
      [/uma hora e meia/g, '90 minutos'],
      [/(?:uma )?meia hora/g, '30 minutos'],
      [/três quartos de hora/g, '45 minutos'],
      [/um quarto de hora/g, '15 minutos'],
    ],
    numbers: {
      um: 1,
      uma: 1,
      dois: 2,
      duas: 2,
      três: 3,
      tres: 3,
      quatro: 4,
      cinco: 5,
      seis: 6,
      sete: 7,
      oito: 8,
      nove: 9,
      dez: 10,
      onze: 11,
      doze: 12,
      quinze: 15,
      vinte: 20,
      trinta: 30,
      quarenta: 40,
      cinquenta: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: 'segundos?|segs?|s',
      m: 'minutos?|mins?|m',
      h: 'horas?|hrs?|h',
      d: 'dias?|d',
      w: 'semanas?|sem',
    },
    joiner: '(?:,|e)?',
    phrases: ['^(?:em|daqui a|daqui|dentro de) {parts}$', '^{parts} a partir de agora$'],
  }),
  dayAfterTomorrow: { phrase: /depois de amanhã/i, tomorrow: 'amanhã' },
  dayPartHour: (text) => (/noite/.test(text) ? 20 : /tarde/.test(text) ? 15 : undefined),
};
