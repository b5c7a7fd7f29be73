// The write gate's text rules, pure: the words of a fact (for near-duplicates), the subject a fact is about (for
// corrections and contradictions) and whether it says that something changed. Deterministic: the same text always
// gives the same answer.

/** Two facts whose word sets overlap at least this much (Jaccard: shared words / all words) are near-duplicates. */
export const DUPLICATE_WORD_OVERLAP = 0.8;
/** With embeddings: two facts whose embeddings have at least this cosine similarity are near-duplicates. */
export const DUPLICATE_COSINE = 0.92;

/** The words of a text: NFKC, lower-cased, letters and digits only (punctuation and spacing dropped), distinct, sorted. */
export function factWords(text: string): string[] {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].sort();
}

/** The words as one key: equal for texts that differ only in case, punctuation, spacing and word order. */
export function contentKey(text: string): string {
  return factWords(text).join(' ');
}

/** Jaccard overlap of two word sets: 1 for the same words in any order, 0 for none shared. */
export function wordOverlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const set = new Set(a);
  const shared = b.filter((word) => set.has(word)).length;
  return shared / (set.size + b.length - shared);
}

/** Words with a digit (numbers, dates, phone parts): two facts that differ in one are never duplicates. */
export const numbersOf = (words: readonly string[]) => words.filter((word) => /\p{N}/u.test(word)).join(' ');

/**
 * Near-duplicate by words: the same numbers, and a word overlap of at least DUPLICATE_WORD_OVERLAP. Returns the
 * overlap, or null when they are not near-duplicates.
 */
export function textDuplicate(a: readonly string[], b: readonly string[]): number | null {
  if (numbersOf(a) !== numbersOf(b)) return null;
  const overlap = wordOverlap(a, b);
  return overlap >= DUPLICATE_WORD_OVERLAP ? overlap : null;
}

/** Whether two facts that are not near-duplicates by words still are by embedding (same numbers, high cosine). */
export function embeddingDuplicate(a: readonly string[], b: readonly string[], cosine: number): boolean {
  return numbersOf(a) === numbersOf(b) && cosine >= DUPLICATE_COSINE;
}

/** A subject key: lower-case words, single spaces; "my accountant", "anna berger's number". */
export function subjectKey(subject: string): string | null {
  const key = (
    subject
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}'’]+/gu) ?? []
  )
    .map((word) => word.replace(/’/g, "'"))
    .join(' ');
  return key === '' ? null : key.slice(0, 200);
}

const NAME = String.raw`[\p{Lu}][\p{L}'’.&-]*(?:\s+[\p{Lu}&][\p{L}'’.&-]*)*`;
const ROLE = String.raw`[\p{L}][\p{L}-]*(?:\s+[\p{L}][\p{L}-]*){0,2}?`;
const END = String.raw`(?=\s*(?:$|[.,;!?]|\s(?:from|since|as of|starting|now|again|anymore|any more)\b))`;

/**
 * The subject rules, first match wins (English): "my <role> is …", "<Name> is (now) my <role>", "<Name> replaces
 * <Name> as my <role>", "<Name>'s <attribute> is …". The role is one to three words.
 */
const SUBJECT_PATTERNS: Array<{ pattern: RegExp; key: (match: RegExpMatchArray) => string }> = [
  { pattern: new RegExp(String.raw`\bmy\s+(${ROLE})\s+(?:is|are|was)\b`, 'iu'), key: (m) => `my ${m[1]}` },
  {
    pattern: new RegExp(String.raw`\b(?:replaces|replaced|succeeds)\s+${NAME}\s+as\s+my\s+(${ROLE})${END}`, 'u'),
    key: (m) => `my ${m[1]}`,
  },
  {
    pattern: new RegExp(String.raw`\b(?:is|are)\s+(?:now\s+|no longer\s+)?my\s+(?:new\s+)?(${ROLE})${END}`, 'iu'),
    key: (m) => `my ${m[1]}`,
  },
  {
    pattern: new RegExp(String.raw`(?:^|\s)(${NAME})['’]s?\s+(?:new\s+)?([\p{L}][\p{L}-]*)\s+(?:is|are|was)\b`, 'u'),
    key: (m) => `${m[1]}'s ${m[2]}`,
  },
];

/**
 * What a fact is about, as a key: the stated subject when given, else the first subject rule the text matches, else
 * null (then the fact is only checked for duplicates).
 */
export function factSubject(text: string, stated?: string | null): string | null {
  if (stated && stated.trim() !== '') return subjectKey(stated);
  const oneLine = text.replace(/\s+/g, ' ').trim();
  for (const { pattern, key } of SUBJECT_PATTERNS) {
    const match = oneLine.match(pattern);
    if (match) return subjectKey(key(match).replace(/^my\s+new\s+/i, 'my '));
  }
  return null;
}

/** Words that say a fact changes an earlier one ("my accountant is now Anna", "Anna replaces Stefan"). */
const CHANGE_WORDS =
  /\b(?:now|no longer|not any ?more|anymore|replaces|replaced|replacing|succeeds|instead|changed|switched|moved|new|actually|from now on|jetzt|nun|neu|neue|neuer|ersetzt|statt|nicht mehr|ab sofort)\b/iu;

/** Whether a fact says that it changes what was true before: then it supersedes an earlier fact of its subject. */
export function saysChange(text: string): boolean {
  return CHANGE_WORDS.test(text.replace(/\s+/g, ' '));
}
