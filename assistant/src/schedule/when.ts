// Reminders' `when`: read by code, not by the model, in the user's zone and language. Relative durations ("in 2
// hours") are elapsed time; days ("in 3 days", "tomorrow at 9") are calendar days on the user's clock, so DST never
// shifts them. Each language has chrono's parser and our own relative grammar (when-rules/); English is the fallback.
import { DateTime, FixedOffsetZone } from 'luxon';
import { AssistantInputError } from '../errors';
import { requireLocale, scheduleLanguage, type ScheduleLanguage } from './locale';
import { WHEN_MESSAGES } from './schedule-messages';
import { WHEN_LANGUAGES, type WhenLanguage } from './when-rules';
import { addCalendarDays, requireDate, requireTimeZone, toWall, wallToInstant } from './zone';

export { describeInstantIn } from './schedule-messages';

export interface WhenOptions {
  /** The injected clock. */
  now: Date;
  /** The user's IANA zone (their setting, or the instance default). */
  timeZone: string;
  /** The user's locale (BCP 47): its language reads `when` and words the answer. Unset or unsupported: English. */
  locale?: string | null;
}

export type WhenResult = { ok: true; at: Date; understood: string } | { ok: false; message: string };

/** The hour a day without a time means ("tomorrow", "next Monday", "2026-04-01"). */
export const DEFAULT_HOUR = 9;
const MAX_LENGTH = 300;

/** Parses a reminder's `when` against `now` in `timeZone`. Past or unreadable → a sentence the agent can relay. */
export function parseWhen(text: string, options: WhenOptions): WhenResult {
  const timeZone = requireTimeZone(options?.timeZone);
  const now = requireDate(options?.now);
  const locale = options?.locale ? requireLocale(options.locale) : 'en';
  const language = scheduleLanguage(locale);
  if (typeof text !== 'string') throw new AssistantInputError('when', 'must be a string');
  if (text.length > MAX_LENGTH) throw new AssistantInputError('when', `must be at most ${MAX_LENGTH} characters`);
  const input = normalise(text, language);
  const at = input ? read(input, now, timeZone, language) : null;
  const messages = WHEN_MESSAGES[language];
  if (!at || !at.isValid || at.year > 9999) return { ok: false, message: messages.unreadable(input, timeZone) };
  const understood = messages.describe(at.toMillis(), timeZone, locale);
  if (at.toMillis() <= now.getTime()) {
    const nowDescribed = messages.describe(now.getTime(), timeZone, locale);
    return { ok: false, message: messages.passed(input, understood, nowDescribed, timeZone) };
  }
  return { ok: true, at: at.toJSDate(), understood };
}

/** Trimmed, spaces collapsed; in other languages also NFKC (full-width digits and letters become ASCII). */
function normalise(text: string, language: ScheduleLanguage): string {
  const input = text.trim().replace(/\s+/g, ' ');
  return language === 'en' ? input : input.normalize('NFKC');
}

/** The user's language first; when it finds nothing, English (the model may pass the user's words in English). */
function read(input: string, now: Date, zone: string, language: ScheduleLanguage): DateTime | null {
  const own = readIn(WHEN_LANGUAGES[language], input, now, zone);
  return own ?? (language === 'en' ? null : readIn(WHEN_LANGUAGES.en, input, now, zone));
}

function readIn(rules: WhenLanguage, input: string, now: Date, zone: string): DateTime | null {
  return rules.relative(input, now, zone) ?? iso(input, zone) ?? natural(rules, input, now, zone);
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

function natural(rules: WhenLanguage, input: string, now: Date, zone: string): DateTime | null {
  // chrono computes on the process's local clock. Give it a reference whose local reading is the user's reading,
  // then take back only the wall-clock fields it found and place them in the user's zone ourselves: the result
  // does not depend on the process's TZ.
  const w = toWall(now, zone);
  const reference = new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0);
  // "The day after tomorrow" chrono misreads: ask it for tomorrow, add a day below.
  const later = rules.dayAfterTomorrow?.phrase.test(input) ? rules.dayAfterTomorrow : undefined;
  const text = later ? input.replace(later.phrase, later.tomorrow) : input;
  const [result] = rules.chrono.parse(text, reference, { forwardDate: true });
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
    wall.hour = rules.dayPartHour(input.toLowerCase()) ?? DEFAULT_HOUR;
    wall.minute = 0;
  }
  if (later) Object.assign(wall, addCalendarDays(wall, 1));
  if (s.isCertain('weekday') && !s.isCertain('day') && wall.day === w.day && wall.month === w.month) {
    // A bare weekday that is today ("Monday", said on a Monday) means the next one.
    Object.assign(wall, addCalendarDays(wall, 7));
  }
  if (s.isCertain('timezoneOffset')) {
    return DateTime.fromObject(wall, { zone: FixedOffsetZone.instance(s.get('timezoneOffset') ?? 0) });
  }
  return wallToInstant(wall, zone);
}
