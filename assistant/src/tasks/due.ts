// A task's due time, read by code on the user's clock: `due` in the user's words, like a reminder's `when` (parseWhen,
// in their zone and locale; a past time in words is refused with its sentence) or as ISO 8601 (read as `dueAt` is:
// a task may be overdue already), or `dueAt` as ISO 8601. An ISO time without
// an offset, and a date alone (at DEFAULT_HOUR, as parseWhen reads one), are on the user's clock, never the server's.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { getUserPreferences } from '../settings/preferences';
import { DEFAULT_HOUR, parseWhen } from '../schedule/when';
import { requireDate, wallToInstant } from '../schedule/zone';
import { optionalTimestamp, requireText } from '../validate';

export interface TaskDueInput {
  /** The user's words ("tomorrow at 5pm", "Freitag 17 Uhr", "2026-05-01"); null or "none" clears. */
  due?: unknown;
  /** ISO 8601 (an offset optional); null clears. */
  dueAt?: unknown;
}

const NONE = new Set(['none', 'no', 'never', 'remove', 'clear']);
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const ISO_HINT = 'must be an ISO 8601 date-time such as 2026-05-01T09:00:00Z, or a date such as 2026-05-01';

const given = (value: unknown) => value !== undefined && value !== '';

/** `dueAt` as ISO 8601: with an offset as it says; without one (or a date alone) on the clock of `timeZone`. */
export function readDueAt(value: unknown, timeZone: string, field = 'dueAt'): Date | null | undefined {
  if (!given(value)) return undefined;
  if (value === null || value instanceof Date) return optionalTimestamp(value, field);
  const match = typeof value === 'string' ? ISO.exec(value.trim()) : null;
  if (!match) throw new AssistantInputError(field, ISO_HINT);
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  if (offset) return optionalTimestamp(value, field);
  const wall = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: hour === undefined ? DEFAULT_HOUR : Number(hour),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
  };
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second));
  if (check.getUTCDate() !== wall.day || check.getUTCHours() !== wall.hour || check.getUTCMinutes() !== wall.minute) {
    throw new AssistantInputError(field, 'is not a valid date-time');
  }
  const millis = fraction ? Math.round(Number(fraction) * 1000) : 0;
  return new Date(wallToInstant(wall, timeZone).toMillis() + millis);
}

/**
 * `due` in the user's words, read like a reminder's `when`: unreadable or past → the sentence saying so. An ISO 8601
 * value is read as `dueAt` is, past or not.
 */
export function readDueWords(
  value: unknown,
  options: { now: Date; timeZone: string; locale: string },
  field = 'due',
): Date | null | undefined {
  if (!given(value)) return undefined;
  if (value === null) return null;
  const text = requireText(value, field, 300).trim();
  if (NONE.has(text.toLowerCase())) return null;
  if (ISO.test(text)) return readDueAt(text, options.timeZone, field);
  const parsed = parseWhen(text, options);
  if (!parsed.ok) throw new AssistantInputError(field, parsed.message);
  return parsed.at;
}

/**
 * The due time given in `input` (undefined: not given; null: cleared), read in the user's zone and locale. A value
 * wins over a null beside it (a tool that passes both fields); two values are refused.
 */
export async function readTaskDue(
  db: Queryable,
  userId: string,
  input: TaskDueInput,
  nowInput: Date,
): Promise<Date | null | undefined> {
  const present = (value: unknown) => given(value) && value !== null;
  if (present(input.due) && present(input.dueAt)) {
    throw new AssistantInputError('due', 'give either due (words) or dueAt (ISO 8601), not both');
  }
  if (!present(input.due) && !present(input.dueAt)) {
    return input.due === null || input.dueAt === null ? null : undefined;
  }
  const now = requireDate(nowInput);
  const { timeZone, locale } = await getUserPreferences(db, userId);
  return present(input.due) ? readDueWords(input.due, { now, timeZone, locale }) : readDueAt(input.dueAt, timeZone);
}
