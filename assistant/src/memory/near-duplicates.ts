// Groups of near-duplicate word sets by the gate's rule (textDuplicate: the same numbers, a word overlap of at least
// DUPLICATE_WORD_OVERLAP), joined transitively, without comparing every pair: sets are compared only when they have
// the same numbers, compatible sizes (an overlap of t needs t·|a| ≤ |b| ≤ |a| / t) and share one of their rarest
// |words| - ceil(t·|words|) + 1 words in one global order (prefix filtering: two sets with an overlap of at least t
// always do). The result is the same as comparing every pair (assistant/test/memory/near-duplicates.test.ts).
import { DUPLICATE_WORD_OVERLAP, numbersOf, wordOverlap } from './gate-text';

/** The index lists of the groups of two or more near-duplicates among `wordSets`, each in index order. */
export function nearDuplicateIndexGroups(wordSets: ReadonlyArray<readonly string[]>): number[][] {
  const parent = wordSets.map((_, index) => index);
  const root = (index: number): number => (parent[index] === index ? index : (parent[index] = root(parent[index])));
  const byNumbers = new Map<string, number[]>();
  wordSets.forEach((words, index) => {
    if (words.length === 0) return;
    const key = numbersOf(words);
    const same = byNumbers.get(key);
    if (same) same.push(index);
    else byNumbers.set(key, [index]);
  });
  for (const members of byNumbers.values()) {
    if (members.length < 2) continue;
    for (const [a, b] of candidatePairs(members, wordSets))
      if (wordOverlap(wordSets[a], wordSets[b]) >= DUPLICATE_WORD_OVERLAP) parent[root(a)] = root(b);
  }
  const groups = new Map<number, number[]>();
  wordSets.forEach((_, index) => {
    const members = groups.get(root(index));
    if (members) members.push(index);
    else groups.set(root(index), [index]);
  });
  return [...groups.values()].filter((members) => members.length > 1);
}

/** The pairs of `members` that share a prefix word and have compatible sizes, each once. */
function* candidatePairs(members: number[], wordSets: ReadonlyArray<readonly string[]>): Generator<[number, number]> {
  const frequency = new Map<string, number>();
  for (const index of members) for (const word of wordSets[index]) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const rarestFirst = (a: string, b: string) => frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
  const byPrefixWord = new Map<string, number[]>();
  for (const index of members) {
    const words = wordSets[index];
    const size = words.length - Math.ceil(DUPLICATE_WORD_OVERLAP * words.length - 1e-9) + 1;
    const seen = new Set<number>();
    for (const word of [...words].sort(rarestFirst).slice(0, size)) {
      const holders = byPrefixWord.get(word);
      for (const other of holders ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        const [short, long] = [words.length, wordSets[other].length].sort((x, y) => x - y);
        if (short >= DUPLICATE_WORD_OVERLAP * long - 1e-9) yield [other, index];
      }
      if (holders) holders.push(index);
      else byPrefixWord.set(word, [index]);
    }
  }
}
