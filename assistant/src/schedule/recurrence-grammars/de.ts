// German: "alle 2 Stunden", "jeden Montag um 9", "werktags um 7:30", "montags und donnerstags um 9:15 Uhr".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'uhr|h';
const DAY_NAMES = ['Sonntag', 'Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag'];
const EXAMPLES = ['alle 15 Minuten', 'werktags um 7:30', 'jeden Montag um 9', 'täglich um 18:00', '30 7 * * 1-5'];
const quote = (text: string) => `„${text}“`;

export const de: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [
      /^alle (?:(?<amount>\S+) )?(?<unit>\S+)$/,
      /^jede[nrs]? (?:(?<amount>\S+) )?(?<unit>\S+)$/,
      /^(?<unit>stündlich|minütlich)$/,
    ],
    amounts: {
      ein: 1,
      eine: 1,
      einer: 1,
      zwei: 2,
      drei: 3,
      vier: 4,
      fünf: 5,
      sechs: 6,
      zehn: 10,
      zwölf: 12,
      fünfzehn: 15,
      zwanzig: 20,
      dreißig: 30,
      halbe: 0.5,
      zweite: 2,
      zweiten: 2,
      dritte: 3,
      dritten: 3,
    },
    units: [
      [/^(?:sekunden?|sek|s)$/, 'seconds'],
      [/^(?:minuten?|min|minütlich)$/, 'minutes'],
      [/^(?:stunden?|std|h|stündlich)$/, 'hours'],
      [/^(?:tage?|tagen)$/, 'days'],
      [/^(?:wochen?|monate?n?|jahre?n?)$/, 'longer'],
    ],
    calendar: [...daysThenTime('um|gegen'), timeThenDays('um|gegen', HOUR_WORDS)],
    recurrenceStart: /^(?:jede[nrs]?|alle|immer|täglich|werktags|wochentags|am wochenende)(?: |$)/,
    everyDay: /^(?:jeden tag|täglich|tagtäglich|alle tage)$/,
    weekdays: /^(?:werktags|wochentags|(?:an |jeden )?(?:werktagen?|wochentagen?))$/,
    weekend: /^(?:am wochenende|an wochenenden|jedes wochenende|wochenends)$/,
    dayNames: [
      /^(?:sonntags?|so)$/,
      /^(?:montags?|mo)$/,
      /^(?:dienstags?|di)$/,
      /^(?:mittwochs?|mi)$/,
      /^(?:donnerstags?|do)$/,
      /^(?:freitags?|fr)$/,
      /^(?:samstags?|sonnabends?|sa)$/,
    ],
    dayArticles: /^(?:(?:jeden|jede|jedes|immer|am|an|den)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:und|&)\s+|\s*\/\s*/,
    range: /^(?:von )?(?<from>[^\s–-]+) ?(?:bis|-|–) ?(?<to>\S+)$/,
    timePrefix: /^(?:um|gegen)\s+/,
    hourWords: HOUR_WORDS,
    noon: /^(?:mittag|mittags)$/,
    midnight: /^mitternacht$/,
    evening: /\s+(?:abends|nachmittags|am abend|am nachmittag)$/,
    morning: /\s+(?:morgens|früh|vormittags|am morgen|am vormittag)$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Zum Beispiel: ${exampleList(EXAMPLES, '„', '“', 'oder eine Cron-Zeile')}.`,
    problems: {
      empty: () => 'Der Zeitplan ist leer.',
      cronFields: (input, count) =>
        `${quote(input)} ist keine Cron-Zeile: Sie braucht 5 Felder (Minute Stunde Tag Monat Wochentag), nicht ${count}.`,
      cronNever: (input) => `Die Cron-Zeile ${quote(input)} läuft nie.`,
      cronInvalid: (input, reason) => `${quote(input)} ist keine gültige Cron-Zeile (${reason}).`,
      tooOften: () => 'Zeitpläne laufen höchstens einmal pro Minute.',
      wholeDays: (input) => `${quote(input)}: Bitte ganze Tage angeben, oder stattdessen Stunden.`,
      wholeMinutes: (input) => `${quote(input)}: Der Abstand muss eine ganze Zahl von Minuten sein, mindestens 1.`,
      needsDayAndTime: (input) =>
        `${quote(input)}: Bitte Tag und Uhrzeit nennen, z. B. ${quote('jeden Montag um 9')} oder eine Cron-Zeile.`,
      needsTime: (input) => `${quote(input)} braucht eine Uhrzeit, z. B. ${quote('werktags um 7:30')}.`,
      unreadable: (input) => `Ich konnte ${quote(input)} nicht als Zeitplan lesen.`,
      days: (input) => `Ich konnte die Tage in ${quote(input)} nicht lesen.`,
      time: (input) => `Ich konnte die Uhrzeit in ${quote(input)} nicht lesen (z. B. 7:30, 18:00 oder 9 Uhr).`,
    },
    cron: (cron, timeZone) => `Cron ${quote(cron)} in ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'jede Minute' : `alle ${n} Minuten`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'jeden Tag' : `alle ${n} Tage`} zur Uhrzeit des vorigen Laufs, in ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'täglich',
        weekdays: 'werktags (Mo–Fr)',
        weekend: 'am Wochenende (Sa, So)',
        list: (list) => `jeden ${listOf(mondayFirst(list, DAY_NAMES), 'und')}`,
      })} um ${hhmm} Uhr in ${timeZone}`,
  },
};
