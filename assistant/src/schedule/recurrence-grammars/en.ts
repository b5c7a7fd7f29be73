// English: "every 15 minutes", "every weekday at 7:30", "Mondays and Thursdays at 9:15", "at 7:30 every weekday".
import { parseTimeOfDay } from './time-of-day';
import type { Days, IntervalUnit, Reading, RecurrenceLanguage } from './types';
import { daysLabel, exampleList } from './wording';

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const AMOUNT_WORDS: Record<string, number> = { other: 2, half: 0.5, a: 1, an: 1, one: 1 };
const UNITS: Record<string, IntervalUnit> = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' };
const EXAMPLES = ['every 15 minutes', 'every weekday at 7:30', 'every Monday at 9', 'daily at 18:00', '30 7 * * 1-5'];

export function readEnglish(lower: string): Reading {
  // Intervals: "every 15 minutes", "every hour", "every 2 days", "every half hour".
  const interval =
    /^every (?:(\d+(?:\.\d+)?|other|half|an?|one) ?)?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)$/.exec(
      lower,
    );
  if (interval) {
    const [, amountText, unitText] = interval;
    const amount = amountText === undefined ? 1 : (AMOUNT_WORDS[amountText] ?? Number(amountText));
    return { ok: true, kind: 'interval', amount, unit: UNITS[unitText[0]] };
  }
  if (/^every (\d+ )?(weeks?|months?|years?)$/.test(lower)) return { ok: false, problem: 'needsDayAndTime' };

  // Calendar rules: "every weekday at 7:30", "daily at 18:00", "at 9 every Monday", "Mondays and Thursdays at 9".
  const timeFirst = /^at (.+?) (?:every|each|on) (.+)$/.exec(lower);
  const daysFirst = /^(?:every |each |on )?(.+?) at (.+)$/.exec(lower);
  const daysText = timeFirst ? timeFirst[2] : daysFirst?.[1];
  const timeText = timeFirst ? timeFirst[1] : daysFirst?.[2];
  if (!daysText || !timeText) {
    const needsTime = /^(every|each|daily|weekdays|weekends)\b/.test(lower);
    return { ok: false, problem: needsTime ? 'needsTime' : 'unreadable' };
  }
  const days = parseDays(daysText);
  if (!days) return { ok: false, problem: 'days' };
  const time = parseTimeOfDay(timeText);
  if (!time) return { ok: false, problem: 'time' };
  return { ok: true, kind: 'calendar', days, ...time };
}

function parseDays(text: string): Days | null {
  const t = text.trim();
  if (/^(day|daily|days|every day)$/.test(t)) return 'every';
  if (/^(weekday|weekdays|work ?day|work ?days|business day|business days)$/.test(t)) return 'weekdays';
  if (/^(weekend|weekends|weekend day|weekend days)$/.test(t)) return 'weekend';
  const picked = new Set<number>();
  for (const word of t.split(/\s*(?:,|\band\b|&|\/)\s*/)) {
    const w = word.trim();
    const index = DAY_NAMES.findIndex((name) => w.length >= 3 && (name.startsWith(w) || `${name}s` === w));
    if (index < 0) return null;
    picked.add(index);
  }
  if (picked.size === 0) return null;
  return [...picked].sort((a, b) => a - b);
}

export const en: RecurrenceLanguage = {
  grammar: readEnglish,
  phrases: {
    examples: EXAMPLES,
    refuse: (why) => `${why} Try, for example, ${exampleList(EXAMPLES, '"', '"', 'or a cron line')}.`,
    problems: {
      empty: () => 'The schedule is empty.',
      cronFields: (input, count) =>
        `"${input}" is not a cron line: it needs 5 fields (minute hour day month weekday), not ${count}.`,
      cronNever: (input) => `The cron line "${input}" never runs.`,
      cronInvalid: (input, reason) => `"${input}" is not a valid cron line (${reason}).`,
      tooOften: () => 'Schedules run at most once a minute.',
      wholeDays: (input) => `"${input}": give whole days, or hours instead.`,
      wholeMinutes: (input) => `"${input}": the interval must be a whole number of minutes, at least 1.`,
      needsDayAndTime: (input) => `"${input}": say which day and time, e.g. "every Monday at 9" or a cron line.`,
      needsTime: (input) => `"${input}" needs a time of day, e.g. "every weekday at 7:30".`,
      unreadable: (input) => `I could not read "${input}" as a schedule.`,
      days: (input) => `I could not read the days in "${input}".`,
      time: (input) => `I could not read the time of day in "${input}" (use e.g. 7:30, 18:00 or 9am).`,
    },
    cron: (cron, timeZone) => `cron "${cron}" in ${timeZone}`,
    everyMinutes: (n) => `every ${n === 1 ? 'minute' : `${n} minutes`}`,
    everyDays: (n, timeZone) =>
      `every ${n === 1 ? 'day' : `${n} days`} at the time of the previous run, in ${timeZone}`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: 'every day',
        weekdays: 'every weekday (Mon-Fri)',
        weekend: 'every weekend day (Sat, Sun)',
        list: (list) => `every ${list.map((d) => DAY_SHORT[d]).join(', ')}`,
      })} at ${hhmm} in ${timeZone}`,
  },
};
