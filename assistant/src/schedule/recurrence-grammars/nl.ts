// Dutch: "elke 15 minuten", "om de 2 uur", "elke maandag om 9 uur", "op werkdagen om 7:30".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'uur|u|h';
const DAY_NAMES = ['zondag', 'maandag', 'dinsdag', 'woensdag', 'donderdag', 'vrijdag', 'zaterdag'];
const EXAMPLES = [
  'elke 15 minuten',
  'op werkdagen om 7:30',
  'elke maandag om 9 uur',
  'elke dag om 18:00',
  '30 7 * * 1-5',
];

export const nl: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [/^(?:elke?|iedere?|om de) (?:(?<amount>\S+) )?(?<unit>\S+)$/],
    amounts: {
      een: 1,
      één: 1,
      twee: 2,
      drie: 3,
      vier: 4,
      vijf: 5,
      zes: 6,
      tien: 10,
      twaalf: 12,
      vijftien: 15,
      twintig: 20,
      dertig: 30,
      half: 0.5,
    },
    units: [
      [/^(?:seconden?|sec|s)$/, 'seconds'],
      [/^(?:minuten|minuut|min)$/, 'minutes'],
      [/^(?:uur|uren|u)$/, 'hours'],
      [/^(?:dagen|dag)$/, 'days'],
      [/^(?:weken|week|maanden|maand|jaren|jaar)$/, 'longer'],
    ],
    calendar: [...daysThenTime('om|rond'), timeThenDays('om|rond', HOUR_WORDS)],
    recurrenceStart: /^(?:elke?|iedere?|dagelijks|werkdagen|op werkdagen|doordeweeks)(?: |$)/,
    everyDay: /^(?:elke dag|iedere dag|dagelijks|alle dagen)$/,
    weekdays: /^(?:(?:op |elke |iedere )?(?:werkdagen|werkdag|weekdagen|weekdag)|doordeweeks|door de week)$/,
    weekend: /^(?:(?:in het|het|elk|ieder) weekend|in de weekenden|weekends)$/,
    dayNames: [
      /^(?:zondags?|zo)$/,
      /^(?:maandags?|ma)$/,
      /^(?:dinsdags?|di)$/,
      /^(?:woensdags?|wo)$/,
      /^(?:donderdags?|do)$/,
      /^(?:vrijdags?|vr)$/,
      /^(?:zaterdags?|za)$/,
    ],
    dayArticles: /^(?:(?:elke|iedere|op|'s)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:en|&)\s+/,
    range: /^(?:van )?(?<from>\S+) (?:tot en met|t\/m|tot) (?<to>\S+)$/,
    timePrefix: /^(?:om|rond)\s+/,
    hourWords: HOUR_WORDS,
    noon: /^(?:het )?middaguur$/,
    midnight: /^middernacht$/,
    evening: /\s+'s (?:avonds|middags)$/,
    morning: /\s+'s (?:ochtends|morgens)$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Bijvoorbeeld: ${exampleList(EXAMPLES, '"', '"', 'of een cronregel')}.`,
    problems: {
      empty: () => 'Het schema is leeg.',
      cronFields: (input, count) =>
        `"${input}" is geen cronregel: er zijn 5 velden nodig (minuut uur dag maand weekdag), geen ${count}.`,
      cronNever: (input) => `De cronregel "${input}" loopt nooit.`,
      cronInvalid: (input, reason) => `"${input}" is geen geldige cronregel (${reason}).`,
      tooOften: () => 'Een schema loopt hoogstens één keer per minuut.',
      wholeDays: (input) => `"${input}": geef hele dagen op, of anders uren.`,
      wholeMinutes: (input) => `"${input}": de tussentijd moet een geheel aantal minuten zijn, minstens 1.`,
      needsDayAndTime: (input) =>
        `"${input}": noem de dag en het tijdstip, bijvoorbeeld "elke maandag om 9 uur" of een cronregel.`,
      needsTime: (input) => `"${input}" heeft een tijdstip nodig, bijvoorbeeld "op werkdagen om 7:30".`,
      unreadable: (input) => `Ik kon "${input}" niet als schema lezen.`,
      days: (input) => `Ik kon de dagen in "${input}" niet lezen.`,
      time: (input) => `Ik kon het tijdstip in "${input}" niet lezen (gebruik bijvoorbeeld 7:30, 18:00 of 9 uur).`,
    },
    cron: (cron, timeZone) => `cron "${cron}" in ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'elke minuut' : `elke ${n} minuten`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'elke dag' : `elke ${n} dagen`} op het tijdstip van de vorige uitvoering, in ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'elke dag',
        weekdays: 'op werkdagen (ma–vr)',
        weekend: 'in het weekend (za, zo)',
        list: (list) => `elke ${listOf(mondayFirst(list, DAY_NAMES), 'en')}`,
      })} om ${hhmm} in ${timeZone}`,
  },
};
