// Italian: "ogni 15 minuti", "ogni giorno alle 7:30", "ogni lunedì alle 9", "dal lunedì al venerdì alle 7:30".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'h|in punto';
const DAY_NAMES = ['domenica', 'lunedì', 'martedì', 'mercoledì', 'giovedì', 'venerdì', 'sabato'];
const EXAMPLES = [
  'ogni 15 minuti',
  'nei giorni feriali alle 7:30',
  'ogni lunedì alle 9',
  'ogni giorno alle 18:00',
  '30 7 * * 1-5',
];
const quote = (text: string) => `«${text}»`;

export const it: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [
      /^ogni (?:(?<amount>\S+) )?(?<unit>\S+)$/,
      /^ogni (?<amount>mezz)'(?<unit>ora)$/,
      /^tutt[ie] (?:i|le|gli) (?<unit>\S+)$/,
    ],
    amounts: {
      un: 1,
      una: 1,
      due: 2,
      tre: 3,
      quattro: 4,
      cinque: 5,
      sei: 6,
      dieci: 10,
      dodici: 12,
      quindici: 15,
      venti: 20,
      trenta: 30,
      mezza: 0.5,
      mezz: 0.5,
    },
    units: [
      [/^(?:secondi|secondo|s)$/, 'seconds'],
      [/^(?:minuti|minuto|min)$/, 'minutes'],
      [/^(?:ore|ora|h)$/, 'hours'],
      [/^(?:giorni|giorno)$/, 'days'],
      [/^(?:settimane|settimana|mesi|mese|anni|anno)$/, 'longer'],
    ],
    calendar: [...daysThenTime('alle ore|alle|verso le|a'), timeThenDays('alle ore|alle|verso le', HOUR_WORDS)],
    recurrenceStart: /^(?:ogni|tutti|tutte|giornalmente|quotidianamente|nei giorni|in settimana)(?: |$)/,
    everyDay: /^(?:ogni giorno|tutti i giorni|giornalmente|quotidianamente)$/,
    weekdays: /^(?:(?:nei |i |ogni |tutti i )?giorni? (?:feriali?|lavorativi|lavorativo)|in settimana)$/,
    weekend: /^(?:(?:nel|il|ogni|nei) (?:fine settimana|weekend))$/,
    dayNames: [
      /^(?:domeniche|domenica|dom)$/,
      /^(?:luned[iì]|lun)$/,
      /^(?:marted[iì]|mar)$/,
      /^(?:mercoled[iì]|mer)$/,
      /^(?:gioved[iì]|gio)$/,
      /^(?:venerd[iì]|ven)$/,
      /^(?:sabati|sabato|sab)$/,
    ],
    dayArticles: /^(?:(?:ogni|tutti i|tutte le|il|la|i|le|di)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:e|ed|&)\s+/,
    range: /^(?:dal |da )?(?<from>\S+) (?:al|a) (?<to>\S+)$/,
    timePrefix: /^(?:(?:alle|verso le|ore|a)\s+)+/,
    hourWords: HOUR_WORDS,
    noon: /^mezzogiorno$/,
    midnight: /^mezzanotte$/,
    evening: /\s+(?:di sera|del pomeriggio|di pomeriggio)$/,
    morning: /\s+(?:di mattina|del mattino)$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Per esempio: ${exampleList(EXAMPLES, '«', '»', 'o una riga cron')}.`,
    problems: {
      empty: () => 'La pianificazione è vuota.',
      cronFields: (input, count) =>
        `${quote(input)} non è una riga cron: servono 5 campi (minuto ora giorno mese giorno-della-settimana), non ${count}.`,
      cronNever: (input) => `La riga cron ${quote(input)} non viene mai eseguita.`,
      cronInvalid: (input, reason) => `${quote(input)} non è una riga cron valida (${reason}).`,
      tooOften: () => 'Una pianificazione viene eseguita al massimo una volta al minuto.',
      wholeDays: (input) => `${quote(input)}: indica giorni interi, oppure ore.`,
      wholeMinutes: (input) => `${quote(input)}: l'intervallo deve essere un numero intero di minuti, almeno 1.`,
      needsDayAndTime: (input) =>
        `${quote(input)}: indica il giorno e l'ora, ad es. ${quote('ogni lunedì alle 9')} o una riga cron.`,
      needsTime: (input) => `${quote(input)} ha bisogno di un orario, ad es. ${quote('nei giorni feriali alle 7:30')}.`,
      unreadable: (input) => `Non sono riuscito a leggere ${quote(input)} come pianificazione.`,
      days: (input) => `Non sono riuscito a leggere i giorni in ${quote(input)}.`,
      time: (input) => `Non sono riuscito a leggere l'orario in ${quote(input)} (usa ad es. 7:30, 18:00 o 9).`,
    },
    cron: (cron, timeZone) => `cron ${quote(cron)}, fuso orario ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'ogni minuto' : `ogni ${n} minuti`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'ogni giorno' : `ogni ${n} giorni`} all'ora dell'esecuzione precedente, fuso orario ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'ogni giorno',
        weekdays: 'nei giorni feriali (lun–ven)',
        weekend: 'nel fine settimana (sab, dom)',
        list: (list) => `ogni ${listOf(mondayFirst(list, DAY_NAMES), 'e')}`,
      })} ${hhmm.startsWith('01:') ? "all'" : 'alle '}${hhmm}, fuso orario ${timeZone}`,
  },
};
