// Time-zone helpers shared by reminders, schedules and quiet hours: checks of the zone and the clock, and the one
// place where a local wall-clock time becomes an instant (DST gaps and repeated hours decided here, once).
import { DateTime, IANAZone } from 'luxon';
import { AssistantInputError } from '../errors';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A local wall-clock time, as read on a clock in some zone (month 1–12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/** Checks an IANA zone name ("Europe/Vienna", "UTC") and returns it (its case fixed where Intl knows it). */
export function requireTimeZone(value: unknown, field = 'timeZone'): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !IANAZone.isValidZone(name)) {
    throw new AssistantInputError(field, 'must be an IANA time zone such as Europe/Vienna, America/New_York or UTC');
  }
  // Intl's canonical name fixes the case ("europe/vienna"), but it would also rename zones (Kolkata → Calcutta).
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return canonical.toLowerCase() === name.toLowerCase() ? canonical : name;
}

/** Checks the injected clock. */
export function requireDate(value: unknown, field = 'now'): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new AssistantInputError(field, 'must be a valid Date');
  }
  return value;
}

/** The wall-clock reading of `instant` in `zone`, as milliseconds of a UTC date with the same reading. */
export function wallMillis(instant: Date | number, zone: string): number {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  return ms + IANAZone.create(zone).offset(ms) * MINUTE_MS;
}

/** Every instant at which a clock in `zone` reads `wall`, earliest first: none in a DST gap, two in a repeated hour. */
export function wallInstants(wall: WallTime, zone: string): number[] {
  const target = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  const z = IANAZone.create(zone);
  const offsets = new Set([z.offset(target - DAY_MS), z.offset(target), z.offset(target + DAY_MS)]);
  const found = new Set<number>();
  for (const offset of offsets) {
    const ms = target - offset * MINUTE_MS;
    if (z.offset(ms) === offset) found.add(ms);
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The instant a clock in `zone` reads `wall`. In a repeated (autumn) hour: the first occurrence. In a DST gap (a
 * time that does not exist, spring): the first valid minute after the gap, i.e. the moment the clocks jump.
 */
export function wallToInstant(wall: WallTime, zone: string): DateTime {
  const [first] = wallInstants(wall, zone);
  if (first !== undefined) return DateTime.fromMillis(first, { zone });
  const target = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  // In a gap: somewhere between the two readings the clock jumps past `target`. Find the jump to the minute.
  const z = IANAZone.create(zone);
  const offsets = [z.offset(target - DAY_MS), z.offset(target + DAY_MS)];
  let lo = target - Math.max(...offsets) * MINUTE_MS;
  let hi = target - Math.min(...offsets) * MINUTE_MS;
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallMillis(mid, zone) >= target) hi = mid;
    else lo = mid;
  }
  return DateTime.fromMillis(hi, { zone });
}

/** The wall-clock reading of `instant` in `zone`. */
export function toWall(instant: Date | number, zone: string): WallTime {
  const d = new Date(wallMillis(instant, zone));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** The calendar date `days` after the date of `wall` (same time of day). */
export function addCalendarDays(wall: WallTime, days: number): WallTime {
  const d = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return { ...wall, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** "Tue 2026-03-31 09:00 Europe/Vienna": how the assistant names a moment to the user. */
export function describeInstant(instant: Date | number, zone: string): string {
  const dt = DateTime.fromMillis(typeof instant === 'number' ? instant : instant.getTime(), { zone, locale: 'en' });
  return `${dt.toFormat('ccc yyyy-LL-dd HH:mm')} ${zone}`;
}
