// Quiet hours and cooldowns: when the assistant may nudge a user unasked. Quiet hours are local wall-clock times in
// the user's zone and may cross midnight (22:00–07:00); a cooldown keeps the same nudge from repeating too soon.
import { AssistantInputError } from '../errors';
import { addCalendarDays, requireDate, requireTimeZone, toWall, wallInstants, wallToInstant } from './zone';

/** Local times "HH:MM"; `start` is quiet, `end` is not. `end` earlier than `start` crosses midnight. */
export interface QuietHours {
  start: string;
  end: string;
}

function minuteOfDay(value: unknown, field: string): number {
  const m = typeof value === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(value.trim()) : null;
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw new AssistantInputError(field, 'must be a time "HH:MM"');
  return Number(m[1]) * 60 + Number(m[2]);
}

function requireQuiet(quiet: QuietHours): { start: number; end: number } {
  if (!quiet || typeof quiet !== 'object') throw new AssistantInputError('quietHours', 'must be { start, end }');
  const start = minuteOfDay(quiet.start, 'quietHours.start');
  const end = minuteOfDay(quiet.end, 'quietHours.end');
  if (start === end) throw new AssistantInputError('quietHours.end', 'must differ from quietHours.start');
  return { start, end };
}

/** Whether `now` falls in the quiet hours, read on the user's clock. */
export function isQuiet(now: Date, timeZone: string, quiet: QuietHours): boolean {
  const zone = requireTimeZone(timeZone);
  const { start, end } = requireQuiet(quiet);
  const wall = toWall(requireDate(now), zone);
  const minute = wall.hour * 60 + wall.minute;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/**
 * `now` if it is not quiet, else the end of the quiet hours: the next time the user's clock reads `end` (its first
 * valid minute if that reading falls in a DST gap).
 */
export function nextAllowed(now: Date, timeZone: string, quiet: QuietHours): Date {
  if (!isQuiet(now, timeZone, quiet)) return now;
  const zone = requireTimeZone(timeZone);
  const { end } = requireQuiet(quiet);
  const today = toWall(now, zone);
  for (let days = 0; days <= 2; days++) {
    const wall = { ...addCalendarDays(today, days), hour: Math.floor(end / 60), minute: end % 60, second: 0 };
    const instants = wallInstants(wall, zone);
    for (const at of instants.length ? instants : [wallToInstant(wall, zone).toMillis()]) {
      if (at > now.getTime()) return new Date(at);
    }
  }
  throw new Error('unreachable: quiet hours end within two days');
}

/** Whether a nudge last sent at `lastSentAt` (or never) may be sent again at `now`. */
export function cooledDown(lastSentAt: Date | null | undefined, now: Date, cooldownMinutes: number): boolean {
  requireDate(now);
  requireCooldown(cooldownMinutes);
  if (lastSentAt === null || lastSentAt === undefined) return true;
  return now.getTime() - requireDate(lastSentAt, 'lastSentAt').getTime() >= cooldownMinutes * 60_000;
}

/** The earliest moment a nudge may go out: after its cooldown, and outside quiet hours (if the user has them). */
export function nudgeAllowedAt(options: {
  now: Date;
  timeZone: string;
  quiet?: QuietHours | null;
  lastSentAt?: Date | null;
  cooldownMinutes: number;
}): Date {
  const now = requireDate(options?.now);
  requireTimeZone(options.timeZone);
  requireCooldown(options.cooldownMinutes);
  const cooled = options.lastSentAt
    ? new Date(requireDate(options.lastSentAt, 'lastSentAt').getTime() + options.cooldownMinutes * 60_000)
    : now;
  const earliest = cooled > now ? cooled : now;
  return options.quiet ? nextAllowed(earliest, options.timeZone, options.quiet) : earliest;
}

function requireCooldown(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new AssistantInputError('cooldownMinutes', 'must be a number of minutes, 0 or more');
  }
  return value;
}
