// Relative times ("in 2 hours", "in 3 days"), one grammar per language, one reading for all: hours, minutes and
// seconds are elapsed time; whole days and weeks are calendar days on the user's clock, so DST never shifts them.
import { DateTime } from 'luxon';
import { addCalendarDays, toWall, wallToInstant } from '../zone';

export type RelativeUnit = 's' | 'm' | 'h' | 'd' | 'w';

export interface RelativeGrammar {
  /** Set phrases rewritten first, on the lower-cased text ("half an hour" → "30 minutes"), in this order. */
  rewrites: [RegExp, string][];
  /** Amounts in words ("two" → 2). */
  numbers: Record<string, number>;
  /** An amount in digits, as a regular expression. */
  digits: string;
  /** Each unit's words, as regular-expression alternatives ("hours?|hrs?|h"). */
  units: Record<RelativeUnit, string>;
  /** What may join two amounts ("1 hour and 30 minutes"), as an optional regular expression. */
  joiner: string;
  /** The whole phrasings, `{parts}` where the amounts go ("^in {parts}$"). */
  phrases: string[];
}

/** Reads `input` as a relative time against `now` in `zone`, or null when it is not one. */
export type RelativeReader = (input: string, now: Date, zone: string) => DateTime | null;

const UNIT_MS: Record<'s' | 'm' | 'h', number> = { s: 1_000, m: 60_000, h: 3_600_000 };
const UNIT_ORDER: RelativeUnit[] = ['s', 'm', 'h', 'd', 'w'];

/** Compiles a language's grammar once into its reader. */
export function relativeReader(grammar: RelativeGrammar): RelativeReader {
  const units = UNIT_ORDER.map((unit) => grammar.units[unit]).join('|');
  const part = String.raw`(${grammar.digits}|${Object.keys(grammar.numbers).join('|')})\s*(${units})`;
  const parts = String.raw`${part}(?:\s*${grammar.joiner}\s*${part})*`;
  // One amount at a time, each chosen so that the rest still reads ("2 semanas" is weeks, not "2 s" + "emanas").
  const first = new RegExp(String.raw`^\s*${grammar.joiner}\s*${part}(?=(?:\s*${grammar.joiner}\s*${part})*$)`, 'i');
  const phrases = grammar.phrases.map((phrase) => new RegExp(phrase.replace('{parts}', `(${parts})`), 'i'));
  const unitOf = UNIT_ORDER.map((unit) => [unit, new RegExp(`^(?:${grammar.units[unit]})$`, 'i')] as const);

  return (input, now, zone) => {
    const text = grammar.rewrites.reduce(
      (t, [pattern, replacement]) => t.replace(pattern, replacement),
      input.toLowerCase(),
    );
    const match = phrases.map((re) => re.exec(text)).find(Boolean);
    if (!match) return null;
    let ms = 0;
    let days = 0;
    for (let rest = match[1], found = first.exec(rest); found; found = first.exec(rest)) {
      rest = rest.slice(found[0].length);
      const amount = grammar.numbers[found[1]] ?? Number(found[1].replace(',', '.'));
      const word = found[2];
      const unit = unitOf.find(([, re]) => re.test(word))![0];
      if (unit === 'd') days += amount;
      else if (unit === 'w') days += amount * 7;
      else ms += amount * UNIT_MS[unit];
    }
    const wholeDays = Math.floor(days);
    ms += Math.round((days - wholeDays) * 86_400_000);
    // Whole days are calendar days on the user's clock (same time of day across a DST change); the rest is elapsed.
    const start = wholeDays
      ? wallToInstant(addCalendarDays(toWall(now, zone), wholeDays), zone).toMillis()
      : now.getTime();
    return DateTime.fromMillis(start + ms, { zone });
  };
}
