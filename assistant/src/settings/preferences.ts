// A user's proactive preferences: their time zone, locale (the language times are read in), quiet hours (no nudges or
// briefings then) and the local time of their daily briefing. Unset values fall back to the instance defaults (time
// zone, locale, quiet hours); no briefing time means no briefing.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { requireLocale } from '../schedule/locale';
import type { QuietHours } from '../schedule/quiet';
import { requireTimeZone, requireUserId } from '../validate';

export interface UserPreferences {
  timeZone: string;
  /** BCP 47 (e.g. de-AT): the language the user's times, dates and recurrences are read and answered in. */
  locale: string;
  quietHours: QuietHours | null;
  /** "HH:MM" on the user's clock, or null: no briefing. */
  briefingTime: string | null;
  /** Where proactive messages of a webhook user are POSTed, or null (they wait in the outbox to be pulled). */
  callbackUrl: string | null;
}

const OFF = new Set(['off', 'none', 'no', 'never', 'disable', 'disabled']);

/** "7:30", "07:30", "19:05" → "HH:MM"; anything else is an error naming `field`. */
export function requireClockTime(value: unknown, field: string): string {
  const m = typeof value === 'string' ? /^(\d{1,2})[:.h](\d{2})$/.exec(value.trim()) : null;
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) {
    throw new AssistantInputError(field, `must be a time of day such as 07:30 or 19:00, not ${JSON.stringify(value)}`);
  }
  return `${m[1].padStart(2, '0')}:${m[2]}`;
}

/** Quiet hours as "22:00-07:00" (or { start, end }); "off" or null → none. */
export function requireQuietHours(value: unknown, field: string): QuietHours | null {
  if (value === null || (typeof value === 'string' && OFF.has(value.trim().toLowerCase()))) return null;
  let start: unknown;
  let end: unknown;
  if (typeof value === 'string') {
    const parts = value.split(/\s*(?:-|–|to)\s*/);
    if (parts.length !== 2) {
      throw new AssistantInputError(
        field,
        `must be a span such as 22:00-07:00, or "off", not ${JSON.stringify(value)}`,
      );
    }
    [start, end] = parts;
  } else if (value && typeof value === 'object') {
    ({ start, end } = value as { start?: unknown; end?: unknown });
  } else {
    throw new AssistantInputError(field, 'must be a span such as 22:00-07:00, or "off"');
  }
  const quiet = { start: requireClockTime(start, `${field}.start`), end: requireClockTime(end, `${field}.end`) };
  if (quiet.start === quiet.end) throw new AssistantInputError(`${field}.end`, 'must differ from the start');
  return quiet;
}

/** Quiet hours from a row's quiet_start / quiet_end columns. */
export function quietHoursFromColumns(row: Record<string, unknown>): QuietHours | null {
  return typeof row.quiet_start === 'string' && typeof row.quiet_end === 'string'
    ? { start: row.quiet_start, end: row.quiet_end }
    : null;
}

/** The preferences in effect for a user (their own over the instance defaults). */
export async function getUserPreferences(db: Queryable, userIdInput: unknown): Promise<UserPreferences> {
  const userId = requireUserId(userIdInput);
  const result = await db.query(
    `SELECT coalesce(u.time_zone, i.time_zone) AS time_zone, coalesce(u.locale, i.locale) AS locale,
            CASE WHEN u.quiet_start IS NOT NULL OR u.quiet_end = '' THEN u.quiet_start ELSE i.quiet_start END
              AS quiet_start,
            CASE WHEN u.quiet_start IS NOT NULL OR u.quiet_end = '' THEN u.quiet_end ELSE i.quiet_end END
              AS quiet_end,
            u.briefing_time, u.callback_url
       FROM assistant.instance_settings i LEFT JOIN assistant.user_settings u ON u.user_id = $1`,
    [userId],
  );
  const row = result.rows[0];
  return {
    timeZone: row.time_zone as string,
    locale: row.locale as string,
    quietHours: quietHoursFromColumns(row),
    briefingTime: (row.briefing_time as string | null) ?? null,
    callbackUrl: (row.callback_url as string | null) ?? null,
  };
}

export interface PreferencesInput {
  timeZone?: unknown;
  /** BCP 47, e.g. "de-AT". */
  locale?: unknown;
  /** "22:00-07:00", or "off". */
  quietHours?: unknown;
  /** "07:30", or "off". */
  briefingTime?: unknown;
}

/**
 * Changes what is given (empty fields are left alone) and returns the preferences now in effect. "off" for quiet
 * hours means none at all for this user, whatever the instance default says.
 */
export async function updateUserPreferences(
  db: Queryable,
  userIdInput: unknown,
  input: PreferencesInput,
): Promise<UserPreferences> {
  const userId = requireUserId(userIdInput);
  const given = (value: unknown) => value !== undefined && value !== '';
  const sets: string[] = [];
  const values: unknown[] = [userId];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (given(input.timeZone)) set('time_zone', requireTimeZone(input.timeZone, 'time_zone'));
  if (given(input.locale)) set('locale', requireLocale(input.locale, 'locale'));
  if (given(input.quietHours)) {
    // No quiet hours of one's own is stored as start null / end '' (so the instance default does not apply).
    const quiet = requireQuietHours(input.quietHours, 'quiet_hours');
    set('quiet_start', quiet?.start ?? null);
    set('quiet_end', quiet?.end ?? '');
  }
  if (given(input.briefingTime)) {
    const off = typeof input.briefingTime === 'string' && OFF.has(input.briefingTime.trim().toLowerCase());
    set('briefing_time', off ? null : requireClockTime(input.briefingTime, 'briefing_time'));
  }
  if (sets.length === 0) {
    throw new AssistantInputError('time_zone', 'give at least one of time_zone, locale, quiet_hours or briefing_time');
  }
  const user = await db.query('SELECT 1 FROM assistant.users WHERE id = $1', [userId]);
  if (user.rowCount === 0) throw new AssistantInputError('userId', 'no such user');
  await db.query('INSERT INTO assistant.user_settings (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING', [
    userId,
  ]);
  await db.query(
    `UPDATE assistant.user_settings SET ${sets.join(', ')}, updated_at = now() WHERE user_id = $1`,
    values,
  );
  return getUserPreferences(db, userId);
}
