// Spanish: "en 2 horas", "dentro de media hora", "en una hora y media", "en 3 días"; "mañana a las 9", "esta noche".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const es: WhenLanguage = {
  chrono: chrono.es.casual,
  relative: relativeReader({
    rewrites: [
      [/una hora y media/g, '90 minutos'],
      [/(?:una )?media hora/g, '30 minutos'],
      [/tres cuartos de hora/g, '45 minutos'],
      [/un cuarto de hora/g, '15 minutos'],
    ],
    numbers: {
      un: 1,
      una: 1,
      uno: 1,
      dos: 2,
      tres: 3,
      cuatro: 4,
      cinco: 5,
      seis: 6,
      siete: 7,
      ocho: 8,
      nueve: 9,
      diez: 10,
      once: 11,
      doce: 12,
      quince: 15,
      veinte: 20,
      treinta: 30,
      cuarenta: 40,
      cincuenta: 50,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: {
      s: 'segundos?|segs?|s',
      m: 'minutos?|mins?|m',
      h: 'horas?|hrs?|h',
      d: 'días?|dias?|d',
      w: 'semanas?|sem',
    },
    joiner: '(?:,|y)?',
    phrases: ['^(?:en|dentro de|de aquí a) {parts}$', '^{parts} más tarde$'],
  }),
  dayAfterTomorrow: { phrase: /pasado mañana/i, tomorrow: 'mañana' },
  dayPartHour: (text) => (/noche/.test(text) ? 20 : /tarde/.test(text) ? 15 : undefined),
};
