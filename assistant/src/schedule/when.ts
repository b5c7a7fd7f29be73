// Reminders' `when`: read by code, not by the model, in the user's zone. Relative durations ("in 2 hours") are
// elapsed time; days ("in 3 days", "tomorrow at 9") are calendar days on the user's clock, so DST never shifts them.
import * as chrono from 'chrono-node';
import { DateTime, FixedOffsetZone } from 'luxon';
import { AssistantInputError } from '../errors';
import { addCalendarDays, describeInstant, requireDate, requireTimeZone, toWall, wallToInstant } from './zone';

export interface WhenOptions {
  /** The injected clock. */
  now: Date;
  /** The user's IANA zone (their setting, or the instance default). */
  timeZone: string;
}

export type WhenResult = { ok: true; at: Date; understood: string } | { ok: false; message: string };

/** The hour a day without a time means ("tomorrow", "next Monday", "2026-04-01"). */
export const DEFAULT_HOUR = 9;
const MAX_LENGTH = 300;
const EXAMPLES = '"in 2 hours", "tomorrow at 9", "next Monday 14:30", "tonight" or "2026-04-01 09:00"';

/** Parses a reminder's `when` against `now` in `timeZone`. Past or unreadable → a sentence the agent can relay. */
export function parseWhen(text: string, options: WhenOptions): WhenResult {
  const timeZone = requireTimeZone(options?.timeZone);
  const now = requireDate(options?.now);
  if (typeof text !== 'string') throw new AssistantInputError('when', 'must be a string');
  if (text.length > MAX_LENGTH) throw new AssistantInputError('when', `must be at most ${MAX_LENGTH} characters`);
  const input = text.trim().replace(/\s+/g, ' ');
  const at = input ? (relative(input, now, timeZone) ?? iso(input, timeZone) ?? natural(input, now, timeZone)) : null;
  if (!at || !at.isValid || at.year > 9999) {
    return {
      ok: false,
      message:
        `I could not read "${input}" as a time. Try, for example, ${EXAMPLES} ` +
        `(times without a zone are in ${timeZone}).`,
    };
  }
  if (at.toMillis() <= now.getTime()) {
    const [day, ...rest] = describeInstant(at.toMillis(), timeZone).split(' ');
    return {
      ok: false,
      message:
        `I understood "${input}" as ${day} ${rest[0]} ${rest[1]} in ${timeZone}, which has already passed ` +
        `(it is now ${describeInstant(now, timeZone)}). Please give a time in the future, e.g. "in 2 hours" or "tomorrow at 9".`,
    };
  }
  return { ok: true, at: at.toJSDate(), understood: describeInstant(at.toMillis(), timeZone) };
}

// --- relative: "in 2 hours", "in 1h 30m", "in 3 days", "90 minutes from now", "in half an hour" -------------------

const WORD_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
};
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };
const PART = String.raw`(\d+(?:\.\d+)?|${Object.keys(WORD_NUMBERS).join('|')})\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)`;
const PARTS = String.raw`${PART}(?:\s*(?:,|and)?\s*${PART})*`;
const RELATIVE = [
  new RegExp(String.raw`^in (${PARTS})(?: from now)?$`, 'i'),
  new RegExp(`^(${PARTS}) (?:from now|later)$`, 'i'),
];

function relative(input: string, now: Date, zone: string): DateTime | null {
  const text = input
    .toLowerCase()
    .replace(/\b(?:a )?half an? hour\b|\ba half hour\b/g, '30 minutes')
    .replace(/\ban? hour and a half\b/g, '90 minutes')
    .replace(/\ba quarter of an hour\b|\ba quarter hour\b/g, '15 minutes');
  const match = RELATIVE.map((re) => re.exec(text)).find(Boolean);
  if (!match) return null;
  let ms = 0;
  let days = 0;
  for (const part of match[1].matchAll(new RegExp(PART, 'gi'))) {
    const amount = WORD_NUMBERS[part[1]] ?? Number(part[1]);
    const unit = part[2][0];
    if (unit === 'd') days += amount;
    else if (unit === 'w') days += amount * 7;
    else ms += amount * UNIT_MS[unit];
  }
  const wholeDays = Math.floor(days);
  ms += Math.round((days - wholeDays) * 86_400_000);
  // Whole days are calendar days on the user's clock (same time of day across a DST change); the rest is elapsed.
  const start = wholeDays
    ? wallToInstant(addCalendarDays(toWall(now, zone), wholeDays), zone).toMillis()
    : now.getTime();
  return DateTime.fromMillis(start + ms, { zone });
}

// --- ISO 8601: "2026-04-01", "2026-04-01 09:00", "2026-04-01T09:00:00+02:00", "…Z" -------------------------------

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function iso(input: string, zone: string): DateTime | null {
  const m = ISO.exec(input);
  if (!m) return null;
  const [, year, month, day, hour, minute, second, offset] = m;
  const wall = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: hour === undefined ? DEFAULT_HOUR : Number(hour),
    minute: minute === undefined ? 0 : Number(minute),
    second: second === undefined ? 0 : Number(second),
  };
  // Reject impossible dates (2026-02-30) instead of letting them roll over.
  const check = DateTime.fromObject(wall, { zone: 'UTC' });
  if (!check.isValid || check.day !== wall.day) return DateTime.invalid('not a date');
  if (offset) return DateTime.fromObject(wall, { zone: fixedZone(offset) });
  return wallToInstant(wall, zone);
}

function fixedZone(offset: string): FixedOffsetZone {
  if (offset.toUpperCase() === 'Z') return FixedOffsetZone.utcInstance;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset)!;
  return FixedOffsetZone.instance((m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)));
}

// --- everything else, through chrono: "tomorrow at 9", "next Monday 14:30", "tonight", "3 April 10:00", "noon" ----

function natural(input: string, now: Date, zone: string): DateTime | null {
  // chrono computes on the process's local clock. Give it a reference whose local reading is the user's reading,
  // then take back only the wall-clock fields it found and place them in the user's zone ourselves: the result
  // does not depend on the process's TZ.
  const w = toWall(now, zone);
  const reference = new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0);
  const [result] = chrono.parse(input, reference, { forwardDate: true });
  if (!result) return null;
  const s = result.start;
  const wall = {
    year: s.get('year') ?? w.year,
    month: s.get('month') ?? w.month,
    day: s.get('day') ?? w.day,
    hour: s.get('hour') ?? DEFAULT_HOUR,
    minute: s.get('minute') ?? 0,
    second: 0,
  };
  if (!s.isCertain('hour')) {
    // chrono's guesses for a day without a time are the current hour or noon; ours are fixed and documented.
    const lower = input.toLowerCase();
    wall.hour = /\b(tonight|evening|night)\b/.test(lower) ? 20 : /\bafternoon\b/.test(lower) ? 15 : DEFAULT_HOUR;
    wall.minute = 0;
  }
  if (s.isCertain('weekday') && !s.isCertain('day') && wall.day === w.day && wall.month === w.month) {
    // A bare weekday that is today ("Monday", said on a Monday) means the next one.
    Object.assign(wall, addCalendarDays(wall, 7));
  }
  if (s.isCertain('timezoneOffset')) {
    return DateTime.fromObject(wall, { zone: FixedOffsetZone.instance(s.get('timezoneOffset') ?? 0) });
  }
  return wallToInstant(wall, zone);
}
