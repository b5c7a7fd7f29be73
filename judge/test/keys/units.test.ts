// API keys without a server: the key format, limits on a fake clock, the key cache's lifetime, usage ranges, config.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { KeyAccess } from '../../src/keys/access';
import { MemoryKeyStore } from '../../src/keys/document';
import { envKeyId, envKeyIdOfDigest, generateKey, hashKey, keyIdOf, keyMatches } from '../../src/keys/format';
import { keyDigest } from '../../src/shared/api-key';
import { checkLimits, RateBuckets, type WindowCounts } from '../../src/keys/limits';
import { costOf, usageRange } from '../../src/keys/usage';
import { ApiError } from '../../src/protocol/errors';

const T0 = Date.UTC(2026, 6, 15, 12, 0, 30); // mid-minute, mid-month
const request = (key: string) => ({ headers: { authorization: `Bearer ${key}` } }) as unknown as IncomingMessage;
const counts = (over: Partial<WindowCounts> = {}): WindowCounts => ({
  month: Date.UTC(2026, 6, 1),
  monthTokens: 0,
  minute: T0 - 30_000,
  minuteTokens: 0,
  ...over,
});

describe('key format', () => {
  it('a recognisable prefix, a public id, a 256-bit secret; stored as SHA-256 only', () => {
    const { key, record } = generateKey('ci', { ratePerSecond: 2 }, new Date(T0));
    expect(key).toMatch(/^s1k_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(keyIdOf(key)).toBe(record.id);
    expect(record.hash).toBe(hashKey(key));
    expect(JSON.stringify(record)).not.toContain(key.slice(17));
    expect(keyMatches(key, record)).toBe(true);
    expect(keyMatches(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'), record)).toBe(false);
    expect(keyIdOf('s1k_short_x')).toBeUndefined();
    expect(envKeyId('my-env-key')).toMatch(/^env-[0-9a-f]{12}$/);
    expect(envKeyId('my-env-key')).not.toContain('my-env-key');
    // The server hashes a presented key once: the id from its digest is the same id.
    expect(envKeyIdOfDigest(keyDigest('my-env-key'))).toBe(envKeyId('my-env-key'));
    expect(keyDigest(key).toString('hex')).toBe(record.hash);
  });
});

describe('limits', () => {
  it('rate: a token bucket of one second, refused with the time until the next request fits', () => {
    const buckets = new RateBuckets();
    const limits = { ratePerSecond: 2 };
    expect(checkLimits('k', limits, counts(), buckets, T0)).toBeUndefined();
    expect(checkLimits('k', limits, counts(), buckets, T0)).toBeUndefined();
    const refusal = checkLimits('k', limits, counts(), buckets, T0);
    expect(refusal).toMatchObject({ limit: 'rate', retryAfterMs: 500 });
    expect(refusal?.message).toMatch(/2 requests per second/);
    // A newcomer just before that place waits behind it: the token at T0 + 500 is the refused request's.
    expect(checkLimits('k', limits, counts(), buckets, T0 + 499)).toMatchObject({ limit: 'rate', retryAfterMs: 501 });
    expect(checkLimits('k', limits, counts(), buckets, T0 + 500)).toBeUndefined();
    expect(checkLimits('other', limits, counts(), buckets, T0)).toBeUndefined();
  });

  it('rate: requests refused in the same instant get distinct places in line, each then admitted at its own', () => {
    const buckets = new RateBuckets();
    const take = (at: number) => buckets.take('k', 2, T0 + at);
    expect([take(0), take(0)]).toEqual([undefined, undefined]);
    expect([take(0), take(0), take(0)]).toEqual([500, 1000, 1500]);
    // A newcomer in the meantime goes to the back of the line.
    expect(take(300)).toBe(1700);
    expect([take(500), take(1000), take(1500), take(2000)]).toEqual([undefined, undefined, undefined, undefined]);
    // Once the line is gone, the bucket refills as before.
    expect(take(4000)).toBeUndefined();
  });

  it('rate: a place nobody comes back for is given up, and a spare token is still given to a newcomer', () => {
    const buckets = new RateBuckets();
    const take = (at: number) => buckets.take('k', 2, T0 + at);
    expect([take(0), take(0), take(0)]).toEqual([undefined, undefined, 500]);
    // Nobody came back at 500; a second later the place is forgotten and the full bucket serves newcomers.
    expect([take(2000), take(2000)]).toEqual([undefined, undefined]);
    const slow = new RateBuckets();
    expect([slow.take('k', 2, T0), slow.take('k', 2, T0)]).toEqual([undefined, undefined]);
    expect(slow.take('k', 2, T0 + 100)).toBe(400);
    expect(slow.take('k', 2, T0 + 1000)).toBeUndefined(); // a late returner takes the place at 500
    expect(slow.take('k', 2, T0 + 1000)).toBeUndefined(); // and the bucket has refilled another token by then
  });

  it('a rate under 1/s still allows one request, then waits 1/rate', () => {
    const buckets = new RateBuckets();
    expect(checkLimits('k', { ratePerSecond: 0.5 }, counts(), buckets, T0)).toBeUndefined();
    expect(checkLimits('k', { ratePerSecond: 0.5 }, counts(), buckets, T0)).toMatchObject({ retryAfterMs: 2000 });
  });

  it('tokens per minute: refused until the next UTC minute; an older minute does not count', () => {
    const limits = { tokensPerMinute: 100 };
    const refusal = checkLimits('k', limits, counts({ minuteTokens: 100 }), new RateBuckets(), T0);
    expect(refusal).toMatchObject({ limit: 'tokensPerMinute', retryAfterMs: 30_000 });
    expect(checkLimits('k', limits, counts({ minuteTokens: 99 }), new RateBuckets(), T0)).toBeUndefined();
    const stale = counts({ minute: T0 - 90_000, minuteTokens: 1000 });
    expect(checkLimits('k', limits, stale, new RateBuckets(), T0)).toBeUndefined();
  });

  it('monthly tokens: refused until the first of next month (UTC); token limits take nothing from the rate', () => {
    const buckets = new RateBuckets();
    const limits = { monthlyTokens: 1000, ratePerSecond: 1 };
    const refusal = checkLimits('k', limits, counts({ monthTokens: 1000 }), buckets, T0);
    expect(refusal).toMatchObject({ limit: 'monthlyTokens', retryAfterMs: Date.UTC(2026, 7, 1) - T0 });
    expect(refusal?.message).toMatch(/resets at 2026-08-01T00:00:00.000Z/);
    expect(checkLimits('k', limits, counts({ monthTokens: 999 }), buckets, T0)).toBeUndefined();
    const nextMonth = Date.UTC(2026, 7, 1, 0, 0, 5);
    expect(checkLimits('k', limits, counts({ monthTokens: 5000 }), buckets, nextMonth)).toBeUndefined();
  });
});

describe('KeyAccess on a fake clock', () => {
  async function setup(cacheTtlMs: number) {
    let now = T0;
    const store = new MemoryKeyStore();
    const { key, record } = generateKey('svc', { tokensPerMinute: 50 }, new Date(T0));
    await store.addKey(record);
    const access = await KeyAccess.open(['env-key-123'], { store, cacheTtlMs, now: () => now });
    return { store, key, record, access, advance: (ms: number) => (now += ms) };
  }

  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: unknown) => (error instanceof ApiError ? error.status : -1),
    );

  it('a revoked key is accepted until the cache lifetime ends, and refused on the first request after', async () => {
    const { store, key, record, access, advance } = await setup(1000);
    expect(await access.authenticate(request(key))).toMatchObject({ keyId: record.id, name: 'svc', source: 'store' });
    await store.revokeKey(record.id, new Date(T0));
    advance(999);
    expect(await status(access.authenticate(request(key)))).toBe(200);
    advance(1);
    expect(await status(access.authenticate(request(key)))).toBe(401);
  });

  it('cache lifetime 0: the store is read on every request', async () => {
    const { store, key, record, access } = await setup(0);
    expect(await status(access.authenticate(request(key)))).toBe(200);
    await store.revokeKey(record.id, new Date(T0));
    expect(await status(access.authenticate(request(key)))).toBe(401);
  });

  it('env keys, wrong keys and a wrong secret for a real id', async () => {
    const { key, access } = await setup(0);
    expect(await access.authenticate(request('env-key-123'))).toMatchObject({
      source: 'env',
      keyId: envKeyId('env-key-123'),
    });
    expect(await status(access.authenticate(request('nope')))).toBe(401);
    expect(await status(access.authenticate(request(key.slice(0, -2) + '__')))).toBe(401);
    const missing = { headers: {} } as unknown as IncomingMessage;
    expect(await status(access.authenticate(missing))).toBe(403);
  });

  it('counts its own usage at once (tokens per minute) and writes it to the store', async () => {
    const { store, key, record, access, advance } = await setup(60_000);
    const caller = await access.authenticate(request(key));
    expect(access.admit(caller)).toBeUndefined();
    access.record(caller, 30);
    access.record(caller, 30);
    const again = await access.authenticate(request(key));
    expect(access.admit(again)).toMatchObject({ limit: 'tokensPerMinute', retryAfterMs: 30_000 });
    await access.flush();
    expect(await store.usage({ from: '2026-07-15', to: '2026-07-15' })).toEqual([
      { keyId: record.id, day: '2026-07-15', requests: 2, inputTokens: 60 },
    ]);
    advance(30_000);
    expect(access.admit(await access.authenticate(request(key)))).toBeUndefined();
  });

  it('a store that cannot be read: a key read before is still trusted, a new one gets 503', async () => {
    const { store, key, access, advance } = await setup(10);
    await access.authenticate(request(key));
    store.lookup = () => Promise.reject(new Error('database down'));
    advance(20);
    expect(await status(access.authenticate(request(key)))).toBe(200);
    const other = generateKey('other', {});
    expect(await status(access.authenticate(request(other.key)))).toBe(503);
  });

  it('a failed usage write is kept and written with the next one', async () => {
    const errors: string[] = [];
    const store = new MemoryKeyStore();
    const access = await KeyAccess.open(['k'], { store, now: () => T0, onError: (e) => errors.push(e.message) });
    const caller = await access.authenticate(request('k'));
    const addUsage = store.addUsage.bind(store);
    store.addUsage = () => Promise.reject(new Error('disk full'));
    access.record(caller, 7);
    await access.flush();
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatch(/usage not written yet.*disk full/);
    store.addUsage = addUsage;
    access.record(caller, 3);
    await access.flush();
    expect(await store.usage({ from: '2026-07-01', to: '2026-07-31' })).toEqual([
      { keyId: envKeyId('k'), day: '2026-07-15', requests: 2, inputTokens: 10 },
    ]);
  });
});

describe('usage reports', () => {
  it('costs at the seed price: 0.042 USD per million input tokens', () => {
    expect(costOf({ currency: 'USD', inputPerMillion: 0.042, outputPerMillion: 0 }, 1_000_000)).toBe(0.042);
    expect(costOf({ currency: 'USD', inputPerMillion: 0.042, outputPerMillion: 0 }, 1234)).toBe(0.000051828);
  });

  it('from/to: defaults, and sentences naming the parameter', () => {
    expect(usageRange(undefined, undefined, T0)).toEqual({ from: '2026-07-01', to: '2026-07-15' });
    expect(usageRange(undefined, '2026-02-10', T0)).toEqual({ from: '2026-02-01', to: '2026-02-10' });
    expect(usageRange('2026-02-30', undefined, T0)).toEqual({ problem: expect.stringMatching(/^from must be a date/) });
    expect(usageRange('2026-07-01', 'july', T0)).toEqual({ problem: expect.stringMatching(/^to must be a date/) });
    expect(usageRange('2026-07-02', '2026-07-01', T0)).toEqual({ problem: expect.stringMatching(/is after/) });
    expect(usageRange('2024-01-01', '2026-01-01', T0)).toEqual({ problem: expect.stringMatching(/366 days/) });
  });
});

describe('config: keys and price', () => {
  const backend = { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', upstreamModel: 'm' };

  it('defaults: no store, 1 s cache, the seed price; a store alone is enough (no apiKeys)', () => {
    const plain = parseConfig({ apiKeys: ['k'], backend });
    expect(plain.keys).toEqual({ cacheTtlMs: 1000 });
    expect(plain.price).toEqual({ currency: 'USD', inputPerMillion: 0.042, outputPerMillion: 0 });
    const file = parseConfig({ backend, keys: { file: '/tmp/k.json', cacheTtlMs: 0 } });
    expect(file.apiKeys).toEqual([]);
    expect(file.keys).toEqual({ store: { kind: 'file', file: '/tmp/k.json' }, cacheTtlMs: 0 });
  });

  it('env replaces the file: the store, the cache lifetime and the price', () => {
    const config = parseConfig(
      { backend, keys: { file: '/tmp/k.json' }, price: { inputPerMillion: 1 } },
      {
        JUDGE_KEYS_DATABASE_URL: 'postgres://u@h/db',
        JUDGE_KEY_CACHE_TTL_MS: '250',
        JUDGE_PRICE_INPUT_PER_MILLION: '0.5',
        JUDGE_PRICE_CURRENCY: 'EUR',
      },
    );
    expect(config.keys).toEqual({ store: { kind: 'postgres', databaseUrl: 'postgres://u@h/db' }, cacheTtlMs: 250 });
    expect(config.price).toEqual({ currency: 'EUR', inputPerMillion: 0.5, outputPerMillion: 0 });
  });

  it.each([
    [
      'both stores in the file',
      { keys: { file: 'a', databaseUrl: 'postgres://x' } },
      {},
      /keys\.file \/ keys\.databaseUrl/,
    ],
    ['both stores in env', {}, { JUDGE_KEYS_FILE: 'a', JUDGE_KEYS_DATABASE_URL: 'postgres://x' }, /JUDGE_KEYS_FILE/],
    ['a non-postgres URL', {}, { JUDGE_KEYS_DATABASE_URL: 'mysql://x' }, /JUDGE_KEYS_DATABASE_URL: must be a postgres/],
    ['an unknown keys setting', { keys: { path: 'a' } }, {}, /keys\.path: is not a known setting/],
    ['a negative cache lifetime', { keys: { file: 'a', cacheTtlMs: -1 } }, {}, /keys\.cacheTtlMs: must be an integer/],
    ['a bad env cache lifetime', { keys: { file: 'a' } }, { JUDGE_KEY_CACHE_TTL_MS: '1s' }, /JUDGE_KEY_CACHE_TTL_MS/],
    ['a price that is text', { price: { inputPerMillion: 'cheap' } }, {}, /price\.inputPerMillion: must be a number/],
    ['a negative env price', {}, { JUDGE_PRICE_OUTPUT_PER_MILLION: '-1' }, /JUDGE_PRICE_OUTPUT_PER_MILLION/],
    ['no keys at all', {}, {}, /apiKeys: no API key configured.*JUDGE_KEYS_FILE/],
  ])('%s → an error naming the field', (_name, raw, env, message) => {
    const apiKeys = _name === 'no keys at all' ? {} : { apiKeys: ['k'] };
    expect(() => parseConfig({ ...apiKeys, backend, ...raw }, env)).toThrow(message);
  });
});
