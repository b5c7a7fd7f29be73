// The near-duplicate groups consolidation merges: the same groups as comparing every pair with the gate's rule
// (textDuplicate, joined transitively), on word sets made to sit at the rule's edges: variants one word apart, sets
// of every size near the overlap threshold, numbers that differ, empty sets.
import { describe, expect, it } from 'vitest';
import { textDuplicate } from '../../src/memory/gate-text';
import { nearDuplicateIndexGroups } from '../../src/memory/near-duplicates';

/** Groups by comparing every pair (the rule as written), for reference. */
function everyPairGroups(sets: string[][]): number[][] {
  const parent = sets.map((_, index) => index);
  const root = (index: number): number => (parent[index] === index ? index : (parent[index] = root(parent[index])));
  for (let a = 0; a < sets.length; a++)
    for (let b = 0; b < a; b++)
      if (sets[a].length > 0 && sets[b].length > 0 && textDuplicate(sets[a], sets[b]) !== null)
        parent[root(a)] = root(b);
  const groups = new Map<number, number[]>();
  sets.forEach((_, index) => groups.set(root(index), [...(groups.get(root(index)) ?? []), index]));
  return [...groups.values()].filter((members) => members.length > 1);
}

const canonical = (groups: number[][]) => groups.map((g) => [...g].sort((a, b) => a - b).join(',')).sort();

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function wordSets(seed: number, count: number): string[][] {
  const next = random(seed);
  const vocabulary = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const pick = () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)];
  const sets: string[][] = [];
  for (let i = 0; i < count; i++) {
    const base = sets.length > 0 && next() < 0.5 ? sets[Math.floor(next() * sets.length)] : [];
    const words = new Set(base);
    // A variant of an earlier set: a word or two added or dropped (near the threshold), or a fresh set.
    if (base.length > 0 && next() < 0.5) words.delete(base[Math.floor(next() * base.length)]);
    const adds = base.length > 0 ? Math.floor(next() * 3) : 1 + Math.floor(next() * 14);
    for (let k = 0; k < adds; k++) words.add(pick());
    if (next() < 0.15) words.add(String(Math.floor(next() * 3)));
    if (next() < 0.02) words.clear();
    sets.push([...words].sort());
  }
  return sets;
}

describe('nearDuplicateIndexGroups', () => {
  it('finds the groups comparing every pair finds, on sets at the rule edges', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const sets = wordSets(seed, 150);
      const expected = canonical(everyPairGroups(sets));
      expect(canonical(nearDuplicateIndexGroups(sets)), `seed ${seed}`).toEqual(expected);
    }
    // The sets do reach the rule: groups exist, and many pairs share words without being near-duplicates.
    expect(everyPairGroups(wordSets(7, 150)).length).toBeGreaterThan(5);
  });

  it('keeps sets with other numbers apart, and never groups empty sets', () => {
    const groups = nearDuplicateIndexGroups([
      ['flat', 'in', 'level', '3', 'parking'],
      ['flat', 'in', 'level', '4', 'parking'],
      ['flat', 'in', 'level', '3', 'parking', 'the'],
      [],
      [],
    ]);
    expect(groups).toEqual([[0, 2]]);
  });

  it('joins a chain transitively: a ~ b and b ~ c, though a and c differ more', () => {
    const a = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const b = [...a, 'k', 'l'];
    const c = [...b.slice(1), 'm'];
    expect(textDuplicate(a, c)).toBeNull();
    expect(nearDuplicateIndexGroups([a, b, c])).toEqual([[0, 1, 2]]);
  });
});
