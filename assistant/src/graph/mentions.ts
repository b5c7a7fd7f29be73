// Whether a text names something: the name as whole words, case-insensitive ("Anna" in "Anna's number", not in
// "Annabel"); and whether quoted evidence occurs in a text, spacing and case aside.

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The name occurs in the text as whole words (letters or digits on neither side), ignoring case and spacing. */
export function mentions(text: string, name: string): boolean {
  const words = name.trim().split(/\s+/).filter(Boolean).map(escape);
  if (words.length === 0) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join('\\s+')}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

const squashed = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

/** The quoted evidence occurs in the text (case, spacing and surrounding quote marks aside). */
export function quotedIn(text: string, evidence: string): boolean {
  const quote = squashed(evidence)
    .replace(/^["'“”„‘’«»]+|["'“”„‘’«»]+$/g, '')
    .trim();
  return quote !== '' && squashed(text).includes(quote);
}
