// The time-limited cache: expiry, the entry limit and the weight budget, oldest first.
import { describe, expect, it } from 'vitest';

import { TtlCache } from '../../src/web/cache';

describe('TtlCache', () => {
  it('forgets an entry after its time', () => {
    let now = 0;
    const cache = new TtlCache<string>({ ttlMs: 100, maxEntries: 10, now: () => now });
    cache.set('a', 'page');
    now = 99;
    expect(cache.get('a')).toBe('page');
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops the oldest entries beyond the entry limit or the weight budget', () => {
    const cache = new TtlCache<string>({ ttlMs: 1000, maxEntries: 3, maxWeight: 10, weigh: (v) => v.length });
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    cache.set('c', 'cc');
    expect([cache.get('a'), cache.size]).toEqual(['aaaa', 3]);
    cache.set('d', 'dddd'); // 4 + 4 + 2 + 4 > 10 and 4 entries > 3: a goes
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual(['bbbb', 'cc', 'dddd']);
    cache.set('huge', 'x'.repeat(11)); // heavier than the whole budget: not kept, nothing dropped for it
    expect([cache.get('huge'), cache.size]).toEqual([undefined, 3]);
  });

  it('keeps nothing with a time of 0', () => {
    const cache = new TtlCache<string>({ ttlMs: 0, maxEntries: 3 });
    cache.set('a', 'page');
    expect(cache.get('a')).toBeUndefined();
  });
});
