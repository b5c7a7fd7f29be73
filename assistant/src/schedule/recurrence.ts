// Recurring actions: an interval ("every 15 minutes") or a calendar rule ("every weekday at 7:30", cron), computed
// on the user's clock. Calendar rules match local wall-clock minutes: each matching reading runs once (the first
// time the clock shows it, so a repeated autumn hour runs once), and readings that do not exist (the spring gap)
// run once at the first valid minute after it.
import { Cron } from 'croner';
import { AssistantInputError } from '../errors';
import { requireLocale, scheduleLanguage } from './locale';
import {
  type Days,
  type IntervalUnit,
  type Phrasebook,
  type Problem,
  RECURRENCE_LANGUAGES,
  readRecurrence,
} from './recurrence-grammars';
import {
  addCalendarDays,
  describeInstant,
  requireDate,
  requireTimeZone,
  toWall,
  wallInstants,
  wallToInstant,
} from './zone';

export { parseTimeOfDay } from './recurrence-grammars/time-of-day';

export type IntervalSchedule = {
  ok: true;
  kind: 'interval';
  /** Minutes are elapsed time; days are calendar days at the same time of day on the user's clock. */
  unit: 'minutes' | 'days';
  every: number;
  description: string;
};
export type CalendarSchedule = { ok: true; kind: 'calendar'; cron: string; description: string };
export type Schedule = IntervalSchedule | CalendarSchedule;
export type ScheduleError = { ok: false; message: string };

/** How far missedRuns counts before it stops (a calendar rule is walked run by run). */
export const MAX_COUNTED_RUNS = 10_000;

/**
 * Parses a schedule in the user's zone, read in the user's language (`locale`, BCP 47; English by default): its own
 * phrases, English phrases or a cron line. The description and any refusal are in that language.
 */
export function parseSchedule(
  text: string,
  options: { timeZone: string; locale?: string | null },
): Schedule | ScheduleError {
  const timeZone = requireTimeZone(options?.timeZone);
  const language = scheduleLanguage(options?.locale == null ? undefined : requireLocale(options.locale));
  if (typeof text !== 'string') throw new AssistantInputError('schedule', 'must be a string');
  if (text.length > 200) throw new AssistantInputError('schedule', 'must be at most 200 characters');
  const input = text.trim().replace(/\s+/g, ' ');
  const lower = input.toLowerCase().replace(/[.!]+$/, '');
  const { phrases } = RECURRENCE_LANGUAGES[language];
  const fail = (problem: Problem, detail = ''): ScheduleError => ({
    ok: false,
    message: phrases.refuse(phrases.problems[problem](input, detail)),
  });
  if (!lower) return fail('empty');

  // 5-field cron: minute hour day-of-month month day-of-week.
  const cronText = lower.replace(/^cron:?\s*/, '');
  const fields = cronText.split(' ');
  if (/^[\d*]/.test(fields[0]) && /^[\d*,/-]+$/.test(fields[0])) {
    if (fields.length !== 5) return fail('cronFields', String(fields.length));
    try {
      const cron = new Cron(cronText, { timezone: 'Etc/UTC', paused: true });
      if (!cron.nextRun(new Date(Date.UTC(2000, 0, 1)))) return fail('cronNever');
    } catch (error) {
      return fail('cronInvalid', (error as Error).message);
    }
    return { ok: true, kind: 'calendar', cron: cronText, description: phrases.cron(cronText, timeZone) };
  }

  const reading = readRecurrence(lower, language);
  if (!reading.ok) return fail(reading.problem);
  if (reading.kind === 'interval') {
    const interval = intervalSchedule(reading.amount, reading.unit, timeZone, phrases);
    return typeof interval === 'string' ? fail(interval) : interval;
  }
  const hhmm = `${String(reading.hour).padStart(2, '0')}:${String(reading.minute).padStart(2, '0')}`;
  return {
    ok: true,
    kind: 'calendar',
    cron: `${reading.minute} ${reading.hour} * * ${daysCron(reading.days)}`,
    description: phrases.calendar(reading.days, hhmm, timeZone),
  };
}

/** An interval as a schedule, or what is wrong with it: more than once a minute, part minutes or part days. */
function intervalSchedule(
  amount: number,
  unit: IntervalUnit,
  timeZone: string,
  phrases: Phrasebook,
): IntervalSchedule | Problem {
  if (unit === 'seconds') return 'tooOften';
  if (unit === 'days') {
    if (!Number.isInteger(amount)) return 'wholeDays';
    return {
      ok: true,
      kind: 'interval',
      unit: 'days',
      every: amount,
      description: phrases.everyDays(amount, timeZone),
    };
  }
  const minutes = unit === 'hours' ? amount * 60 : amount;
  if (!Number.isInteger(minutes) || minutes < 1) return 'wholeMinutes';
  return { ok: true, kind: 'interval', unit: 'minutes', every: minutes, description: phrases.everyMinutes(minutes) };
}

function daysCron(days: Days): string {
  if (days === 'every') return '*';
  if (days === 'weekdays') return '1-5';
  if (days === 'weekend') return '0,6';
  return days.join(',');
}

function requireSchedule(schedule: Schedule): Schedule {
  const ok =
    schedule?.ok === true &&
    ((schedule.kind === 'interval' &&
      (schedule.unit === 'minutes' || schedule.unit === 'days') &&
      Number.isInteger(schedule.every) &&
      schedule.every >= 1) ||
      (schedule.kind === 'calendar' && typeof schedule.cron === 'string'));
  if (!ok) throw new AssistantInputError('schedule', 'must be a schedule returned by parseSchedule');
  return schedule;
}

/** A function giving the run after a given instant, with the cron (if any) compiled once. */
function stepper(schedule: Schedule, timeZone: string): (after: number) => number {
  if (schedule.kind === 'interval') {
    if (schedule.unit === 'minutes') return (after) => after + schedule.every * 60_000;
    return (after) => wallToInstant(addCalendarDays(toWall(after, timeZone), schedule.every), timeZone).toMillis();
  }
  let cron: Cron;
  try {
    cron = new Cron(schedule.cron, { timezone: 'Etc/UTC', paused: true });
  } catch (error) {
    throw new AssistantInputError('schedule', `has an invalid cron line (${(error as Error).message})`);
  }
  return (after) => {
    // Walk the matching wall-clock readings (croner on a UTC clock has no DST) and place each in the zone.
    let reading = toWallMillis(after, timeZone);
    for (let i = 0; i < 2_000; i++) {
      const next = cron.nextRun(new Date(reading));
      if (!next) break;
      reading = next.getTime();
      const d = new Date(reading);
      const wall = {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
      };
      // A reading that exists twice runs at its first occurrence only; one in a gap runs when the clocks jump.
      const instants = wallInstants(wall, timeZone);
      const at = instants.length ? instants[0] : wallToInstant(wall, timeZone).toMillis();
      if (at > after) return at;
    }
    throw new AssistantInputError('schedule', 'never runs again');
  };
}

function toWallMillis(instant: number, zone: string): number {
  const w = toWall(instant, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0);
}

/**
 * The first run strictly after `after`. For intervals, `after` is the previous run (or the moment the schedule was
 * created): minutes are added as elapsed time, days as calendar days at the same local time.
 */
export function nextRun(schedule: Schedule, after: Date, timeZone: string): Date {
  const zone = requireTimeZone(timeZone);
  const from = requireDate(after, 'after');
  return new Date(stepper(requireSchedule(schedule), zone)(from.getTime()));
}

export interface MissedRuns {
  /** Runs due in (lastRun, now]. With `capped`, at least this many. */
  count: number;
  capped: boolean;
  first: Date | null;
  last: Date | null;
}

/** The runs that fell due after `lastRun`, up to and including `now`. */
export function missedRuns(schedule: Schedule, lastRun: Date, now: Date, timeZone: string): MissedRuns {
  const { count, capped, first, last } = walk(schedule, lastRun, now, timeZone);
  return { count, capped, first, last };
}

function walk(
  schedule: Schedule,
  lastRun: Date,
  now: Date,
  timeZone: string,
): MissedRuns & { beforeLast: Date | null } {
  const zone = requireTimeZone(timeZone);
  const from = requireDate(lastRun, 'lastRun').getTime();
  const until = requireDate(now).getTime();
  requireSchedule(schedule);
  const date = (ms: number | null) => (ms === null ? null : new Date(ms));
  if (schedule.kind === 'interval' && schedule.unit === 'minutes') {
    const step = schedule.every * 60_000;
    const count = until > from ? Math.floor((until - from) / step) : 0;
    return {
      count,
      capped: false,
      first: date(count ? from + step : null),
      last: date(count ? from + count * step : null),
      beforeLast: date(count > 1 ? from + (count - 1) * step : null),
    };
  }
  const step = stepper(schedule, zone);
  let count = 0;
  let first: number | null = null;
  let last: number | null = null;
  let beforeLast: number | null = null;
  for (let at = step(from); at <= until; at = step(at)) {
    first ??= at;
    beforeLast = last;
    last = at;
    if (++count >= MAX_COUNTED_RUNS) break;
  }
  return {
    count,
    capped: count >= MAX_COUNTED_RUNS,
    first: date(first),
    last: date(last),
    beforeLast: date(beforeLast),
  };
}

export interface CatchUp {
  /** Run now (once), whatever the number of runs that fell due. */
  runNow: boolean;
  /** The due time this run stands for (the latest one that fell due). */
  scheduledFor: Date | null;
  /** Runs that did not happen at their time: all due runs if this one is late, else all but this one. */
  missed: number;
  late: boolean;
  /** For the user when runs were missed or this one is late; null otherwise. */
  note: string | null;
  /** The run after this one. */
  nextRun: Date;
}

/**
 * The missed-runs policy: after downtime, run once, late, with a note naming how many runs were missed; never
 * replay each missed run. A run counts as on time within `graceMinutes` (default 5) of its due time.
 */
export function catchUp(
  schedule: Schedule,
  lastRun: Date,
  now: Date,
  timeZone: string,
  options: { graceMinutes?: number } = {},
): CatchUp {
  const zone = requireTimeZone(timeZone);
  const grace = options.graceMinutes ?? 5;
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0) {
    throw new AssistantInputError('graceMinutes', 'must be a number of minutes, 0 or more');
  }
  const due = walk(schedule, lastRun, now, zone);
  const step = stepper(schedule, zone);
  const after = (at: number) => {
    let next = step(at);
    while (next <= now.getTime()) next = step(next);
    return new Date(next);
  };
  if (due.count === 0 || !due.last) {
    return { runNow: false, scheduledFor: null, missed: 0, late: false, note: null, nextRun: after(lastRun.getTime()) };
  }
  // An interval keeps its grid (anchored at lastRun); a calendar rule simply continues after now.
  const next = schedule.kind === 'calendar' ? new Date(step(now.getTime())) : after(due.last.getTime());
  const lateMs = now.getTime() - due.last.getTime();
  const late = lateMs > grace * 60_000;
  const missed = late ? due.count : due.count - 1;
  let note: string | null = null;
  if (missed > 0) {
    const count = `${due.capped ? 'at least ' : ''}${missed} scheduled run${missed === 1 ? '' : 's'}`;
    const firstMissed = due.first!;
    const lastMissed = late ? due.last : (due.beforeLast ?? firstMissed);
    const span =
      missed === 1
        ? `(due ${describeInstant(firstMissed, zone)})`
        : `(from ${describeInstant(firstMissed, zone)} to ${describeInstant(lastMissed, zone)})`;
    note = late
      ? `Missed ${count} ${span} while the system was down; running once now, ${formatDelay(lateMs)} late, instead of catching up each one.`
      : `Missed ${count} ${span} while the system was down; they are not repeated. This run is on time.`;
  }
  return { runNow: true, scheduledFor: due.last, missed, late, note, nextRun: next };
}

function formatDelay(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}
