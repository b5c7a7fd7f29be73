// "New" from stored state: the first snapshot is the baseline, an unchanged one is silent, and a delta says what
// changed (lines, items, old → new value); a threshold speaks once when crossed, not on every run beyond it.
import { describe, expect, it } from 'vitest';
import { compareSnapshot, lineChanges, MAX_SEEN_ITEMS, numericValue, type CheckState } from '../../src/checks';

const item = (id: string) => ({ id, title: `Title ${id}`, url: `https://x.test/${id}` });

describe('compareSnapshot', () => {
  it('a page: baseline, unchanged (whitespace aside), then the lines added and removed', () => {
    const first = compareSnapshot({ kind: 'page', text: 'Price: 10\nIn stock' }, null);
    expect(first.delta).toBeNull();
    const same = compareSnapshot({ kind: 'page', text: '  Price:   10\n\nIn stock ' }, first.state);
    expect(same.delta).toBeNull();
    const changed = compareSnapshot({ kind: 'page', text: 'Price: 12\nIn stock' }, same.state);
    expect(changed.delta?.summary).toBe('The page changed: 1 line added, 1 removed.\n+ Price: 12\n− Price: 10');
  });

  it('a feed: only ids never seen, all of them in one delta, and the seen list is bounded', () => {
    const base = compareSnapshot({ kind: 'feed', items: [item('a'), item('b')] }, null);
    expect(base.delta).toBeNull();
    const two = compareSnapshot({ kind: 'feed', items: [item('d'), item('c'), item('a'), item('b')] }, base.state);
    expect(two.delta?.summary).toBe('2 new items:\n• Title d — https://x.test/d\n• Title c — https://x.test/c');
    // An item that drops out of the feed and comes back is not new.
    const back = compareSnapshot({ kind: 'feed', items: [item('a')] }, two.state);
    expect(back.delta).toBeNull();
    const many = Array.from({ length: MAX_SEEN_ITEMS + 5 }, (_, i) => item(`n${i}`));
    const big = compareSnapshot({ kind: 'feed', items: many }, back.state);
    expect((big.state as Extract<CheckState, { kind: 'feed' | 'search' }>).seen).toHaveLength(MAX_SEEN_ITEMS);
    expect(big.delta?.summary.split('\n')).toHaveLength(12);
  });

  it('search results by URL', () => {
    const base = compareSnapshot({ kind: 'search', items: [item('a')] }, null);
    expect(compareSnapshot({ kind: 'search', items: [item('b'), item('a')] }, base.state).delta?.summary).toBe(
      '1 new result:\n• Title b — https://x.test/b',
    );
  });

  it('a JSON value: changed with old → new; above and below only when crossing', () => {
    const changed = { condition: 'changed' as const, threshold: null, path: 'data.price' };
    const base = compareSnapshot({ kind: 'json', value: 48 }, null, changed);
    expect(compareSnapshot({ kind: 'json', value: 48 }, base.state, changed).delta).toBeNull();
    expect(compareSnapshot({ kind: 'json', value: 52 }, base.state, changed).delta?.summary).toBe(
      'data.price changed: 48 → 52.',
    );
    const above = { condition: 'above' as const, threshold: 50, path: 'p' };
    const up = compareSnapshot({ kind: 'json', value: '52' }, base.state, above);
    expect(up.delta?.summary).toBe('p went above 50: 48 → 52.');
    expect(compareSnapshot({ kind: 'json', value: 55 }, up.state, above).delta).toBeNull();
    const below = { condition: 'below' as const, threshold: 50, path: 'p' };
    expect(compareSnapshot({ kind: 'json', value: 50 }, up.state, below).delta).toBeNull();
    expect(compareSnapshot({ kind: 'json', value: 49.9 }, up.state, below).delta?.summary).toBe(
      'p went below 50: 52 → 49.9.',
    );
  });

  it('a state of another kind is a new baseline', () => {
    expect(compareSnapshot({ kind: 'page', text: 'x' }, { kind: 'json', value: 1 }).delta).toBeNull();
  });
});

describe('lineChanges and numericValue', () => {
  it('counts repeated lines', () => {
    expect(lineChanges('a\na\nb', 'a\nb\nc')).toEqual({ added: ['c'], removed: ['a'] });
  });
  it('reads numbers and numeric strings only', () => {
    expect(numericValue(' 1,299.50 ')).toBe(1299.5);
    expect(numericValue('12 EUR')).toBeNull();
    expect(numericValue(Number.NaN)).toBeNull();
  });
});
