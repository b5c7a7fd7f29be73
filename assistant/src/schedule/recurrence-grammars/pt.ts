// Portuguese: "a cada 15 minutos", "todos os dias às 7h30", "toda segunda às 9", "de segunda a sexta às 7h30".
import { daysThenTime, timeThenDays, wordGrammar } from './engine';
import type { RecurrenceLanguage } from './types';
import { daysLabel, exampleList, listOf, mondayFirst } from './wording';

const HOUR_WORDS = 'h|hs|horas?';
const DAY_NAMES = ['domingo', 'segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado'];
const EXAMPLES = [
  'a cada 15 minutos',
  'dias úteis às 7h30',
  'toda segunda às 9h',
  'todos os dias às 18h',
  '30 7 * * 1-5',
];
const feira = (name: string) => new RegExp(`^(?:${name})s?(?:[- ]feiras?)?$`);

export const pt: RecurrenceLanguage = {
  grammar: wordGrammar({
    intervals: [
      /^(?:a )?cada (?:(?<amount>\S+) )?(?<unit>\S+)$/,
      /^de (?<amount>\d+) em \k<amount> (?<unit>\S+)$/,
      /^tod[oa]s? (?:[oa]s )?(?:(?<amount>\S+) )?(?<unit>\S+)$/,
    ],
    amounts: {
      um: 1,
      uma: 1,
      dois: 2,
      duas: 2,
      três: 3,
      tres: 3,
      quatro: 4,
      cinco: 5,
      seis: 6,
      dez: 10,
      doze: 12,
      quinze: 15,
      vinte: 20,
      trinta: 30,
      meia: 0.5,
    },
    units: [
      [/^(?:segundos?|s)$/, 'seconds'],
      [/^(?:minutos?|min)$/, 'minutes'],
      [/^(?:horas?|h)$/, 'hours'],
      [/^(?:dias?)$/, 'days'],
      [/^(?:semanas?|mês|mes|meses|anos?)$/, 'longer'],
    ],
    calendar: [...daysThenTime('às|as|à|ao|a|por volta das'), timeThenDays('às|as|à|ao', HOUR_WORDS)],
    recurrenceStart: /^(?:a cada|cada|tod[oa]s?|diariamente|dias úteis|nos dias úteis)(?: |$)/,
    everyDay: /^(?:todos os dias|todo dia|cada dia|diariamente)$/,
    weekdays: /^(?:(?:nos |em |todos os )?dias (?:úteis|uteis|de semana)|durante a semana)$/,
    weekend: /^(?:(?:nos |aos |todos os )?(?:fins|finais) de semana|(?:no |todo |cada )?(?:fim|final) de semana)$/,
    dayNames: [
      /^(?:domingos?|dom)$/,
      feira('segunda'),
      feira('terça|terca'),
      feira('quarta'),
      feira('quinta'),
      feira('sexta'),
      /^(?:sábados?|sabados?|sáb|sab)$/,
    ],
    dayArticles: /^(?:(?:toda|todas as|todo|todos os|cada|às|as|aos|nas|nos|na|no|a|o)\s+)+/,
    listSeparator: /\s*,\s*|\s+(?:e|&)\s+/,
    range: /^(?:de |da |do )?(?<from>\S+) (?:a|à|ao|até) (?<to>\S+)$/,
    timePrefix: /^(?:(?:às|as|à|ao|a|por volta das)\s+)+/,
    hourWords: HOUR_WORDS,
    noon: /^(?:o )?meio[- ]?dia$/,
    midnight: /^(?:a )?meia[- ]noite$/,
    evening: /\s+da (?:tarde|noite)$/,
    morning: /\s+da (?:manhã|madrugada)$/,
  }),
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Por exemplo: ${exampleList(EXAMPLES, '"', '"', 'ou uma linha cron')}.`,
    problems: {
      empty: () => 'O agendamento está vazio.',
      cronFields: (input, count) =>
        `"${input}" não é uma linha cron: precisa de 5 campos (minuto hora dia mês dia-da-semana), não ${count}.`,
      cronNever: (input) => `A linha cron "${input}" nunca é executada.`,
      cronInvalid: (input, reason) => `"${input}" não é uma linha cron válida (${reason}).`,
      tooOften: () => 'Um agendamento é executado no máximo uma vez por minuto.',
      wholeDays: (input) => `"${input}": indique dias inteiros, ou então horas.`,
      wholeMinutes: (input) => `"${input}": o intervalo deve ser um número inteiro de minutos, no mínimo 1.`,
      needsDayAndTime: (input) =>
        `"${input}": diga o dia e a hora, por exemplo "toda segunda às 9h" ou uma linha cron.`,
      needsTime: (input) => `"${input}" precisa de um horário, por exemplo "dias úteis às 7h30".`,
      unreadable: (input) => `Não consegui ler "${input}" como um agendamento.`,
      days: (input) => `Não consegui ler os dias em "${input}".`,
      time: (input) => `Não consegui ler o horário em "${input}" (use por exemplo 7h30, 18:00 ou 9h).`,
    },
    cron: (cron, timeZone) => `cron "${cron}" em ${timeZone}`,
    everyMinutes: (n) => (n === 1 ? 'a cada minuto' : `a cada ${n} minutos`),
    everyDays: (n, timeZone) =>
      `${n === 1 ? 'todos os dias' : `a cada ${n} dias`} no horário da execução anterior, em ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'todos os dias',
        weekdays: 'nos dias úteis (seg.–sex.)',
        weekend: 'nos fins de semana (sáb., dom.)',
        list: (list) =>
          `${list.every((d) => d === 0 || d === 6) ? 'todo' : 'toda'} ${listOf(mondayFirst(list, DAY_NAMES), 'e')}`,
      })} ${hhmm.startsWith('01:') ? 'à' : 'às'} ${hhmm} em ${timeZone}`,
  },
};
