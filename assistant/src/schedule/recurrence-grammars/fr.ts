// French: "toutes les 15 minutes", "tous les jours à 7h30", "chaque lundi à 9h", "du lundi au vendredi à 7h30".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'h|heures?';
const DAY_NAMES = ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'];
const EXAMPLES = [
  'toutes les 15 minutes',
  'en semaine à 7h30',
  'chaque lundi à 9h',
  'tous les jours à 18h',
  '30 7 * * 1-5',
];
const quote = (text: string) => `« ${text} »`;

export const fr: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [
      /^(?:toutes les|tous les|chaque) (?:(?<amount>\S+) )?(?<unit>\S+)$/,
      /^(?:toutes les|chaque) (?<amount>demi)-(?<unit>heures?)$/,
    ],
    amounts: {
      une: 1,
      un: 1,
      deux: 2,
      trois: 3,
      quatre: 4,
      cinq: 5,
      six: 6,
      dix: 10,
      douze: 12,
      quinze: 15,
      vingt: 20,
      trente: 30,
      demi: 0.5,
    },
    units: [
      [/^(?:secondes?|sec|s)$/, 'seconds'],
      [/^(?:minutes?|min|mn)$/, 'minutes'],
      [/^(?:heures?|h)$/, 'hours'],
      [/^(?:jours?|j)$/, 'days'],
      [/^(?:semaines?|mois|ans?|années?)$/, 'longer'],
    ],
    calendar: [...daysThenTime('à|vers'), timeThenDays('à|vers', HOUR_WORDS)],
    recurrenceStart: /^(?:toutes|tous|chaque|quotidiennement|en semaine|le week-end|le weekend)(?: |$)/,
    everyDay: /^(?:tous les jours|chaque jour|quotidiennement|journellement)$/,
    weekdays: /^(?:en semaine|(?:les |chaque |tous les )?jours? (?:ouvrés?|ouvrables?|de (?:la )?semaine))$/,
    weekend: /^(?:(?:le|les|chaque|tous les) week-?ends?)$/,
    dayNames: [
      /^(?:dimanches?|dim)$/,
      /^(?:lundis?|lun)$/,
      /^(?:mardis?|mar)$/,
      /^(?:mercredis?|mer)$/,
      /^(?:jeudis?|jeu)$/,
      /^(?:vendredis?|ven)$/,
      /^(?:samedis?|sam)$/,
    ],
    dayArticles: /^(?:(?:chaque|tous les|le|les)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:et|&)\s+/,
    range: /^(?:du |de )?(?<from>\S+) (?:au|à) (?<to>\S+)$/,
    timePrefix: /^(?:à|vers)\s+/,
    hourWords: HOUR_WORDS,
    noon: /^midi$/,
    midnight: /^minuit$/,
    evening: /\s+(?:du soir|de l'après-midi)$/,
    morning: /\s+du matin$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Par exemple : ${exampleList(EXAMPLES, '« ', ' »', 'ou une ligne cron')}.`,
    problems: {
      empty: () => 'La planification est vide.',
      cronFields: (input, count) =>
        `${quote(input)} n'est pas une ligne cron : il faut 5 champs (minute heure jour mois jour-de-semaine), pas ${count}.`,
      cronNever: (input) => `La ligne cron ${quote(input)} ne s'exécute jamais.`,
      cronInvalid: (input, reason) => `${quote(input)} n'est pas une ligne cron valide (${reason}).`,
      tooOften: () => "Une planification s'exécute au plus une fois par minute.",
      wholeDays: (input) => `${quote(input)} : indiquez des jours entiers, ou bien des heures.`,
      wholeMinutes: (input) => `${quote(input)} : l'intervalle doit être un nombre entier de minutes, au moins 1.`,
      needsDayAndTime: (input) =>
        `${quote(input)} : précisez le jour et l'heure, par ex. ${quote('chaque lundi à 9h')} ou une ligne cron.`,
      needsTime: (input) => `${quote(input)} : il manque l'heure, par ex. ${quote('en semaine à 7h30')}.`,
      unreadable: (input) => `Je n'ai pas pu lire ${quote(input)} comme une planification.`,
      days: (input) => `Je n'ai pas pu lire les jours dans ${quote(input)}.`,
      time: (input) => `Je n'ai pas pu lire l'heure dans ${quote(input)} (par ex. 7h30, 18:00 ou 9h).`,
    },
    cron: (cron, timeZone) => `cron ${quote(cron)}, fuseau ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'chaque minute' : `toutes les ${n} minutes`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'chaque jour' : `tous les ${n} jours`} à l'heure de l'exécution précédente, fuseau ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'tous les jours',
        weekdays: 'en semaine (lun.–ven.)',
        weekend: 'le week-end (sam., dim.)',
        list: (list) => `chaque ${listOf(mondayFirst(list, DAY_NAMES), 'et')}`,
      })} à ${hhmm}, fuseau ${timeZone}`,
  },
};
