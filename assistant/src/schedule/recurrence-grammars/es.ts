// Spanish: "cada 15 minutos", "todos los días a las 7:30", "cada lunes a las 9", "de lunes a viernes a las 7:30".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'h|hs|horas?';
const DAY_NAMES = ['domingo', 'lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'];
const EXAMPLES = [
  'cada 15 minutos',
  'de lunes a viernes a las 7:30',
  'cada lunes a las 9',
  'todos los días a las 18:00',
  '30 7 * * 1-5',
];
const quote = (text: string) => `«${text}»`;

export const es: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [/^cada (?:(?<amount>\S+) )?(?<unit>\S+)$/, /^tod[oa]s l[oa]s (?:(?<amount>\S+) )?(?<unit>\S+)$/],
    amounts: {
      un: 1,
      una: 1,
      dos: 2,
      tres: 3,
      cuatro: 4,
      cinco: 5,
      seis: 6,
      diez: 10,
      doce: 12,
      quince: 15,
      veinte: 20,
      treinta: 30,
      media: 0.5,
    },
    units: [
      [/^(?:segundos?|seg|s)$/, 'seconds'],
      [/^(?:minutos?|min)$/, 'minutes'],
      [/^(?:horas?|h)$/, 'hours'],
      [/^(?:días?|dias?)$/, 'days'],
      [/^(?:semanas?|mes|meses|años?)$/, 'longer'],
    ],
    calendar: [...daysThenTime('a las|a la|a|hacia las'), timeThenDays('a las|a la|a', HOUR_WORDS)],
    recurrenceStart: /^(?:cada|todos|todas|diariamente|a diario|entre semana)(?: |$)/,
    everyDay: /^(?:todos los d[ií]as|cada d[ií]a|diariamente|a diario)$/,
    weekdays:
      /^(?:entre semana|(?:los |cada |todos los )?d[ií]as? (?:laborables?|hábiles?|habiles?|de (?:la )?semana)|laborables)$/,
    weekend: /^(?:(?:el|los|cada|todos los) (?:fin|fines) de semana)$/,
    dayNames: [
      /^(?:domingos?|dom)$/,
      /^(?:lunes|lun)$/,
      /^(?:martes|mar)$/,
      /^(?:miércoles|miercoles|mié|mie)$/,
      /^(?:jueves|jue)$/,
      /^(?:viernes|vie)$/,
      /^(?:sábados?|sabados?|sáb|sab)$/,
    ],
    dayArticles: /^(?:(?:cada|todos los|el|los)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:y|e|&)\s+/,
    range: /^(?:de |del )?(?<from>\S+) (?:a|al|hasta(?: el)?) (?<to>\S+)$/,
    timePrefix: /^(?:(?:a|hacia|las|la)\s+)+/,
    hourWords: HOUR_WORDS,
    noon: /^(?:mediod[ií]a)$/,
    midnight: /^medianoche$/,
    evening: /\s+de la (?:tarde|noche)$/,
    morning: /\s+de la (?:mañana|madrugada)$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Por ejemplo: ${exampleList(EXAMPLES, '«', '»', 'o una línea cron')}.`,
    problems: {
      empty: () => 'La programación está vacía.',
      cronFields: (input, count) =>
        `${quote(input)} no es una línea cron: necesita 5 campos (minuto hora día mes día-de-la-semana), no ${count}.`,
      cronNever: (input) => `La línea cron ${quote(input)} nunca se ejecuta.`,
      cronInvalid: (input, reason) => `${quote(input)} no es una línea cron válida (${reason}).`,
      tooOften: () => 'Una programación se ejecuta como mucho una vez por minuto.',
      wholeDays: (input) => `${quote(input)}: indica días enteros, o bien horas.`,
      wholeMinutes: (input) => `${quote(input)}: el intervalo debe ser un número entero de minutos, al menos 1.`,
      needsDayAndTime: (input) =>
        `${quote(input)}: indica el día y la hora, p. ej. ${quote('cada lunes a las 9')} o una línea cron.`,
      needsTime: (input) => `${quote(input)} necesita una hora, p. ej. ${quote('de lunes a viernes a las 7:30')}.`,
      unreadable: (input) => `No he podido leer ${quote(input)} como una programación.`,
      days: (input) => `No he podido leer los días en ${quote(input)}.`,
      time: (input) => `No he podido leer la hora en ${quote(input)} (usa p. ej. 7:30, 18:00 o 9).`,
    },
    cron: (cron, timeZone) => `cron ${quote(cron)} en ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'cada minuto' : `cada ${n} minutos`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'cada día' : `cada ${n} días`} a la hora de la ejecución anterior, en ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'todos los días',
        weekdays: 'de lunes a viernes',
        weekend: 'los fines de semana (sáb., dom.)',
        list: (list) => `cada ${listOf(mondayFirst(list, DAY_NAMES), 'y')}`,
      })} ${hhmm.startsWith('01:') ? 'a la' : 'a las'} ${hhmm} en ${timeZone}`,
  },
};
