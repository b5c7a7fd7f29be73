// What reading one-off times in one language takes: chrono's parser for it, our relative grammar, day-part words.
import type { Chrono } from 'chrono-node';
import type { RelativeReader } from './relative';

export interface WhenLanguage {
  /** chrono's casual parser for the language: weekdays, dates, "tomorrow", times of day. */
  chrono: Chrono;
  /** "in 2 hours", "in 3 days": read by us, not by chrono (elapsed hours, calendar days). */
  relative: RelativeReader;
  /** The hour a day-part word means when no time is given ("tonight" → 20), read from the lower-cased text. */
  dayPartHour(text: string): number | undefined;
  /** "The day after tomorrow", where chrono reads it as "tomorrow" or not at all: read as `tomorrow`, plus a day. */
  dayAfterTomorrow?: { phrase: RegExp; tomorrow: string };
}
