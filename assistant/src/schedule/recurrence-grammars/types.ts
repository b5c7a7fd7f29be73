// The shared form every recurrence grammar reads a phrase into, and what each language says back.

export type IntervalUnit = 'seconds' | 'minutes' | 'hours' | 'days';

/** The days of a calendar rule: named sets, or a list of weekdays (0 = Sunday), ascending. */
export type Days = 'every' | 'weekdays' | 'weekend' | readonly number[];

/** What a grammar may fail on; parseSchedule adds the checks shared by every language. */
export type GrammarProblem = 'unreadable' | 'needsTime' | 'needsDayAndTime' | 'days' | 'time';
export type Problem =
  GrammarProblem | 'empty' | 'cronFields' | 'cronNever' | 'cronInvalid' | 'tooOften' | 'wholeDays' | 'wholeMinutes';

/** A phrase as read, before the shared checks (whole minutes, at most once a minute). */
export type Reading =
  | { ok: true; kind: 'interval'; amount: number; unit: IntervalUnit }
  | { ok: true; kind: 'calendar'; days: Days; hour: number; minute: number }
  | { ok: false; problem: GrammarProblem };

/** Reads a trimmed, lower-cased phrase (without a final "." or "!"). */
export type Grammar = (lower: string) => Reading;

/** What a language says: descriptions of schedules and refusals naming the forms it accepts. */
export interface Phrasebook {
  /** Phrases that parse in this language, the last a cron line; every refusal names them. */
  examples: readonly string[];
  /** A refusal: why, then the accepted forms. */
  refuse(why: string): string;
  /** Why, for each problem; `detail` is the field count (cronFields) or croner's message (cronInvalid). */
  problems: Record<Problem, (input: string, detail: string) => string>;
  cron(cron: string, timeZone: string): string;
  everyMinutes(minutes: number): string;
  everyDays(days: number, timeZone: string): string;
  calendar(days: Days, hhmm: string, timeZone: string): string;
}

/** A language's grammar (null: none of its own, English phrases are read) and its phrasebook. */
export interface RecurrenceLanguage {
  grammar: Grammar | null;
  phrases: Phrasebook;
}
