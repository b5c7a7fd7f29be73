// Small helpers the phrasebooks share: lists of words, examples, and weekdays in a language's order.
import type { Days } from './types';

/** "a", "a and b", "a, b and c". */
export function listOf(words: readonly string[], and: string): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${and} ${words[words.length - 1]}`;
}

/** The examples quoted, the cron line last: `"a", "b" or a cron line "c"`. */
export function exampleList(examples: readonly string[], open: string, close: string, orCron: string): string {
  const quoted = examples.map((example) => `${open}${example}${close}`);
  return `${quoted.slice(0, -1).join(', ')} ${orCron} ${quoted[quoted.length - 1]}`;
}

/** A list of weekdays (0 = Sunday) named Monday first, as European calendars do. */
export function mondayFirst(days: readonly number[], names: readonly string[]): string[] {
  return [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)).map((day) => names[day]);
}

/** The label of a day set, from a language's words for the named sets and its way of listing days. */
export function daysLabel(
  days: Days,
  words: { every: string; weekdays: string; weekend: string; list: (days: readonly number[]) => string },
): string {
  if (days === 'every') return words.every;
  if (days === 'weekdays') return words.weekdays;
  if (days === 'weekend') return words.weekend;
  return words.list(days);
}
