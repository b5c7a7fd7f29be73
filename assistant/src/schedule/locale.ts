// The user's locale (BCP 47, e.g. `de-AT`) and the language that times, dates and recurrences are read and answered in.
// The text-search configuration (settings' `language`) is a separate setting with its own mapping.
import { AssistantInputError } from '../errors';

/** Languages whose times and recurrences the assistant reads itself; any other locale falls back to English. */
export const SCHEDULE_LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'nl', 'it', 'ja'] as const;
export type ScheduleLanguage = (typeof SCHEDULE_LANGUAGES)[number];

export const DEFAULT_LOCALE = 'en';

const BCP47 = /^[a-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?$/;

/** A BCP 47 locale as given (`de-AT`, `pt-BR`, `ja`), canonicalised by Intl; anything else names the field. */
export function requireLocale(value: unknown, field = 'locale'): string {
  if (typeof value !== 'string' || !BCP47.test(value.trim())) {
    throw new AssistantInputError(
      field,
      `must be a BCP 47 locale such as "en", "de-AT" or "pt-BR", not ${JSON.stringify(value)}`,
    );
  }
  try {
    return Intl.getCanonicalLocales(value.trim())[0];
  } catch {
    throw new AssistantInputError(field, `is not a locale Intl knows: ${JSON.stringify(value)}`);
  }
}

/** The language a locale's times are read and answered in: its primary subtag when supported, else English. */
export function scheduleLanguage(locale: string | undefined | null): ScheduleLanguage {
  const primary = (locale ?? DEFAULT_LOCALE).split('-')[0].toLowerCase();
  return (SCHEDULE_LANGUAGES as readonly string[]).includes(primary) ? (primary as ScheduleLanguage) : 'en';
}
