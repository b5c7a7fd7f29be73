// Recurring actions: an interval ("every 15 minutes") or a calendar rule ("every weekday at 7:30", cron), computed
// on the user's clock. Calendar rules match local wall-clock minutes: each matching reading runs once (the first
// time the clock shows it, so a repeated autumn hour runs once), and readings that do not exist (the spring gap)
// run once at the first valid minute after it.
import { Cron } from 'croner';
import { AssistantInputError } from '../errors';
import {
  addCalendarDays,
  describeInstant,
  requireDate,
  requireTimeZone,
  toWall,
  wallInstants,
  wallToInstant,
} from './zone';

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

const EXAMPLES =
  '"every 15 minutes", "every weekday at 7:30", "every Monday at 9", "daily at 18:00" or a cron line "30 7 * * 1-5"';
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** How far missedRuns counts before it stops (a calendar rule is walked run by run). */
export const MAX_COUNTED_RUNS = 10_000;

/** Parses a schedule in the user's zone. */
export function parseSchedule(text: string, options: { timeZone: string }): Schedule | ScheduleError {
  const timeZone = requireTimeZone(options?.timeZone);
  if (typeof text !== 'string') throw new AssistantInputError('schedule', 'must be a string');
  if (text.length > 200) throw new AssistantInputError('schedule', 'must be at most 200 characters');
  const input = text.trim().replace(/\s+/g, ' ');
  const lower = input.toLowerCase().replace(/[.!]+$/, '');
  const fail = (why: string): ScheduleError => ({ ok: false, message: `${why} Try, for example, ${EXAMPLES}.` });
  if (!lower) return fail('The schedule is empty.');

  // 5-field cron: minute hour day-of-month month day-of-week.
  const cronText = lower.replace(/^cron:?\s*/, '');
  const fields = cronText.split(' ');
  if (/^[\d*]/.test(fields[0]) && /^[\d*,/-]+$/.test(fields[0])) {
    if (fields.length !== 5) {
      return fail(
        `"${input}" is not a cron line: it needs 5 fields (minute hour day month weekday), not ${fields.length}.`,
      );
    }
    try {
      const cron = new Cron(cronText, { timezone: 'Etc/UTC', paused: true });
      if (!cron.nextRun(new Date(Date.UTC(2000, 0, 1)))) return fail(`The cron line "${input}" never runs.`);
    } catch (error) {
      return fail(`"${input}" is not a valid cron line (${(error as Error).message}).`);
    }
    return { ok: true, kind: 'calendar', cron: cronText, description: `cron "${cronText}" in ${timeZone}` };
  }

  // Intervals: "every 15 minutes", "every hour", "every 2 days", "every half hour".
  const interval =
    /^every (?:(\d+(?:\.\d+)?|other|half|an?|one) ?)?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)$/.exec(
      lower,
    );
  if (interval) {
    const [, amountText, unitText] = interval;
    const words: Record<string, number> = { other: 2, half: 0.5, a: 1, an: 1, one: 1 };
    const amount = amountText === undefined ? 1 : (words[amountText] ?? Number(amountText));
    const unit = unitText[0];
    if (unit === 's') return fail('Schedules run at most once a minute.');
    if (unit === 'd') {
      if (!Number.isInteger(amount)) return fail(`"${input}": give whole days, or hours instead.`);
      return {
        ok: true,
        kind: 'interval',
        unit: 'days',
        every: amount,
        description: `every ${amount === 1 ? 'day' : `${amount} days`} at the time of the previous run, in ${timeZone}`,
      };
    }
    const minutes = unit === 'h' ? amount * 60 : amount;
    if (!Number.isInteger(minutes) || minutes < 1) {
      return fail(`"${input}": the interval must be a whole number of minutes, at least 1.`);
    }
    return {
      ok: true,
      kind: 'interval',
      unit: 'minutes',
      every: minutes,
      description: `every ${minutes === 1 ? 'minute' : `${minutes} minutes`}`,
    };
  }
  if (/^every (\d+ )?(weeks?|months?|years?)$/.test(lower)) {
    return fail(`"${input}": say which day and time, e.g. "every Monday at 9" or a cron line.`);
  }

  // Calendar rules: "every weekday at 7:30", "daily at 18:00", "at 9 every Monday", "Mondays and Thursdays at 9".
  const timeFirst = /^at (.+?) (?:every|each|on) (.+)$/.exec(lower);
  const daysFirst = /^(?:every |each |on )?(.+?) at (.+)$/.exec(lower);
  const daysText = timeFirst ? timeFirst[2] : daysFirst?.[1];
  const timeText = timeFirst ? timeFirst[1] : daysFirst?.[2];
  if (!daysText || !timeText) {
    if (/^(every|each|daily|weekdays|weekends)\b/.test(lower)) {
      return fail(`"${input}" needs a time of day, e.g. "every weekday at 7:30".`);
    }
    return fail(`I could not read "${input}" as a schedule.`);
  }
  const days = parseDays(daysText);
  if (!days) return fail(`I could not read the days in "${input}".`);
  const time = parseTimeOfDay(timeText);
  if (!time) return fail(`I could not read the time of day in "${input}" (use e.g. 7:30, 18:00 or 9am).`);
  const hhmm = `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
  return {
    ok: true,
    kind: 'calendar',
    cron: `${time.minute} ${time.hour} * * ${days.cron}`,
    description: `${days.label} at ${hhmm} in ${timeZone}`,
  };
}

function parseDays(text: string): { cron: string; label: string } | null {
  const t = text.trim();
  if (/^(day|daily|days|every day)$/.test(t)) return { cron: '*', label: 'every day' };
  if (/^(weekday|weekdays|work ?day|work ?days|business day|business days)$/.test(t)) {
    return { cron: '1-5', label: 'every weekday (Mon-Fri)' };
  }
  if (/^(weekend|weekends|weekend day|weekend days)$/.test(t))
    return { cron: '0,6', label: 'every weekend day (Sat, Sun)' };
  const picked = new Set<number>();
  for (const word of t.split(/\s*(?:,|\band\b|&|\/)\s*/)) {
    const w = word.trim();
    const index = DAY_NAMES.findIndex((name) => w.length >= 3 && (name.startsWith(w) || `${name}s` === w));
    if (index < 0) return null;
    picked.add(index);
  }
  if (picked.size === 0) return null;
  const list = [...picked].sort((a, b) => a - b);
  return { cron: list.join(','), label: `every ${list.map((d) => DAY_SHORT[d]).join(', ')}` };
}

/** "7:30", "07.30", "18:00", "9", "9am", "9:15 pm", "noon", "midnight". */
export function parseTimeOfDay(text: string): { hour: number; minute: number } | null {
  const t = text.trim().toLowerCase();
  if (t === 'noon' || t === 'midday') return { hour: 12, minute: 0 };
  if (t === 'midnight') return { hour: 0, minute: 0 };
  const m = /^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(t);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  const meridiem = m[3]?.[0];
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem === 'p' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  return { hour, minute };
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
