// The reading engine of the word grammars (de, fr, es, pt, nl, it): a language gives its words as patterns, the
// engine reads a phrase into the shared Reading (an interval, or days and a time of day), as English does.
import { parseTimeOfDay } from './time-of-day';
import type { Days, Grammar, IntervalUnit, Reading } from './types';

export interface GrammarWords {
  /** Interval phrases ("alle 2 Stunden"): groups `unit` and, optionally, `amount` (absent means 1). */
  intervals: readonly RegExp[];
  /** Amounts in words ("zwei", "halbe"). */
  amounts: Readonly<Record<string, number>>;
  /** Unit words; 'longer' (weeks, months, years) asks for a day and a time instead. */
  units: ReadonlyArray<readonly [RegExp, IntervalUnit | 'longer']>;
  /** Calendar phrases ("jeden Montag um 9"): groups `days` and `time`; the first that reads wins. */
  calendar: readonly RegExp[];
  /** How a recurrence without a time starts ("jeden …", "täglich"): answered with "needs a time of day". */
  recurrenceStart: RegExp;
  everyDay: RegExp;
  weekdays: RegExp;
  weekend: RegExp;
  /** Each weekday as a whole word, Sunday first. */
  dayNames: readonly RegExp[];
  /** Words before a day ("jeden", "le", "los"), stripped. */
  dayArticles: RegExp;
  listSeparator: RegExp;
  /** A span of days ("von Montag bis Freitag"): groups `from` and `to`. */
  range: RegExp;
  /** Words before a time ("um", "a las"), stripped. */
  timePrefix: RegExp;
  /** Words for "o'clock" next to the digits ("uhr|h"), a pattern source. */
  hourWords: string;
  noon: RegExp;
  midnight: RegExp;
  /** After a time: afternoon or evening (1–11 become 13–23), and morning (kept). */
  evening: RegExp;
  morning: RegExp;
}

/** "Days then time" split at a connector word, both at its first and at its last occurrence. */
export function daysThenTime(connector: string): RegExp[] {
  return [
    new RegExp(`^(?<days>.+?),? (?:${connector}) (?<time>.+)$`),
    new RegExp(`^(?<days>.+),? (?:${connector}) (?<time>.+)$`),
  ];
}

/** "Time then days": the connector, a time (with its hour word), the days. */
export function timeThenDays(connector: string, hourWords: string): RegExp {
  return new RegExp(`^(?:${connector}) (?<time>\\S+(?: (?:${hourWords}))?) (?<days>.+)$`);
}

export function wordGrammar(words: GrammarWords): Grammar {
  const hour = words.hourWords;
  const clock = new RegExp(`^(\\d{1,2})(?:\\s*(?:${hour}))?(?:\\s*[:.]?\\s*(\\d{2}))?(?:\\s*(?:${hour}))?$`);
  return (lower) => {
    const text = lower.normalize('NFC').replace(/’/g, "'");
    const interval = readInterval(text, words);
    if (interval) return interval;
    let failed: Reading | null = null;
    for (const pattern of words.calendar) {
      const groups = pattern.exec(text)?.groups;
      if (!groups) continue;
      const days = readDays(groups.days, words);
      const time = days && readTime(groups.time, words, clock);
      if (days && time) return { ok: true, kind: 'calendar', days, ...time };
      failed ??= { ok: false, problem: days ? 'time' : 'days' };
    }
    if (failed) return failed;
    if (words.recurrenceStart.test(text) || readDays(text, words)) return { ok: false, problem: 'needsTime' };
    return { ok: false, problem: 'unreadable' };
  };
}

function readInterval(text: string, words: GrammarWords): Reading | null {
  for (const pattern of words.intervals) {
    const groups = pattern.exec(text)?.groups;
    if (!groups) continue;
    const unit = words.units.find(([unitPattern]) => unitPattern.test(groups.unit))?.[1];
    if (!unit) continue;
    if (unit === 'longer') return { ok: false, problem: 'needsDayAndTime' };
    const amount = readAmount(groups.amount, words.amounts);
    if (amount !== null) return { ok: true, kind: 'interval', amount, unit };
  }
  return null;
}

function readAmount(text: string | undefined, amounts: Readonly<Record<string, number>>): number | null {
  if (text === undefined) return 1;
  if (Object.hasOwn(amounts, text)) return amounts[text];
  const amount = Number(text.replace(',', '.').replace(/\.$/, ''));
  return /^\d/.test(text) && Number.isFinite(amount) ? amount : null;
}

function readDays(text: string, words: GrammarWords): Days | null {
  const t = text.trim();
  if (words.everyDay.test(t)) return 'every';
  if (words.weekdays.test(t)) return 'weekdays';
  if (words.weekend.test(t)) return 'weekend';
  const span = words.range.exec(t)?.groups;
  const from = span && dayIndex(span.from, words);
  const to = span && dayIndex(span.to, words);
  if (typeof from === 'number' && typeof to === 'number') return daysFromTo(from, to);
  const picked = new Set<number>();
  for (const part of t.split(words.listSeparator)) {
    const day = dayIndex(part, words);
    if (day === null) return null;
    picked.add(day);
  }
  return picked.size ? [...picked].sort((a, b) => a - b) : null;
}

function dayIndex(text: string, words: GrammarWords): number | null {
  const word = text.trim().replace(words.dayArticles, '').replace(/\.$/, '');
  const index = words.dayNames.findIndex((name) => name.test(word));
  return index < 0 ? null : index;
}

/** Monday to Friday are the weekdays; any other span is its list of days (Saturday to Monday wraps). */
function daysFromTo(from: number, to: number): Days {
  if (from === 1 && to === 5) return 'weekdays';
  const days = [from];
  let day = from;
  while (day !== to) {
    day = (day + 1) % 7;
    days.push(day);
  }
  return days.sort((a, b) => a - b);
}

function readTime(text: string, words: GrammarWords, clock: RegExp): { hour: number; minute: number } | null {
  let t = text.trim().replace(words.timePrefix, '');
  const evening = words.evening.test(t);
  t = t.replace(words.evening, '').replace(words.morning, '').trim();
  if (words.noon.test(t)) return { hour: 12, minute: 0 };
  if (words.midnight.test(t)) return { hour: 0, minute: 0 };
  const digits = clock.exec(t);
  const time = digits ? { hour: Number(digits[1]), minute: Number(digits[2] ?? 0) } : parseTimeOfDay(t);
  if (!time || time.hour > 23 || time.minute > 59) return null;
  if (evening && time.hour >= 1 && time.hour <= 11) time.hour += 12;
  return time;
}
