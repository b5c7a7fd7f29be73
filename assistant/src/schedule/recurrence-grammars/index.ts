// The recurrence grammar and phrasebook of each schedule language; a phrase the user's grammar cannot read is tried
// in English too (and is then described in the user's language), so English phrases and cron work everywhere.
import type { ScheduleLanguage } from '../locale';
import { de } from './de';
import { en, readEnglish } from './en';
import { es } from './es';
import { fr } from './fr';
import { it } from './it';
import { ja } from './ja';
import { nl } from './nl';
import { pt } from './pt';
import type { Reading, RecurrenceLanguage } from './types';

export type { Days, IntervalUnit, Phrasebook, Problem, Reading } from './types';

export const RECURRENCE_LANGUAGES: Readonly<Record<ScheduleLanguage, RecurrenceLanguage>> = {
  en,
  de,
  fr,
  es,
  pt,
  nl,
  it,
  ja,
};

/** Reads a phrase in the user's language, else in English; a refusal names the user's grammar's problem. */
export function readRecurrence(lower: string, language: ScheduleLanguage): Reading {
  const own = RECURRENCE_LANGUAGES[language].grammar;
  if (!own) return readEnglish(lower);
  const reading = own(lower);
  if (reading.ok || own === readEnglish) return reading;
  const english = readEnglish(lower);
  return english.ok ? english : reading;
}
