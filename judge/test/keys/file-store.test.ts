// The JSON key file: private, atomic, locked; and the real server on it (limits → 429, GET /v1/usage, revocation).
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TypeSafeClient, noul } from '@typesafe-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../src/keys/file-store';
import { envKeyId, generateKey } from '../../src/keys/format';
import { KeyStoreError } from '../../src/keys/types';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { uniformBackend } from '../helpers/exact-backend';

const dir = mkdtempSync(path.join(tmpdir(), 'judge-keys-'));
const ENV_KEY = 'env-key-for-file-tests';
const at = new Date(Date.UTC(2026, 6, 15, 12));

describe('FileKeyStore', () => {
  it('keeps keys (hashes only) and usage in a mode 600 file, shared by every instance on the host', async () => {
    const file = path.join(dir, 'nested', 'keys.json');
    const cli = new FileKeyStore(file);
    const server = new FileKeyStore(file);
    const { key, record } = generateKey('alpha', { monthlyTokens: 10 }, at);
    await cli.addKey(record);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(key);
    expect((await server.lookup(record.id, at))?.record).toEqual(record);

    await server.addUsage([{ keyId: record.id, minute: at.getTime(), requests: 1, inputTokens: 4 }]);
    await server.addUsage([{ keyId: record.id, minute: at.getTime() + 60_000, requests: 2, inputTokens: 6 }]);
    expect(await cli.usage({ from: '2026-07-01', to: '2026-07-31' })).toEqual([
      { keyId: record.id, day: '2026-07-15', requests: 3, inputTokens: 10 },
    ]);
    expect((await server.lookup(record.id, at))?.monthTokens).toBe(10);
    // What an upstream reported is kept beside the judge's own count, on the days it was recorded.
    const upstream = { promptTokens: 9, cachedTokens: 4, outputTokens: 1 };
    await server.addUsage([{ keyId: record.id, minute: at.getTime(), requests: 1, inputTokens: 9, upstream }]);
    await server.addUsage([{ keyId: record.id, minute: at.getTime(), requests: 1, inputTokens: 9, upstream }]);
    expect(await cli.usage({ from: '2026-07-15', to: '2026-07-15' })).toEqual([
      {
        keyId: record.id,
        day: '2026-07-15',
        requests: 5,
        inputTokens: 28,
        upstream: { promptTokens: 18, cachedTokens: 8, outputTokens: 2 },
      },
    ]);
    expect((await new FileKeyStore(file).lookup(record.id, new Date(Date.UTC(2026, 7, 1))))?.monthTokens).toBe(0);

    await cli.revokeKey(record.id, at);
    expect((await server.lookup(record.id, at))?.record.revokedAt).toBe(at.toISOString());
    expect(readdirSync(path.dirname(file)).sort()).toEqual(['keys.json']);
  });

  it('refuses a second active key with the same name; a revoked name may be reused', async () => {
    const store = new FileKeyStore(path.join(dir, 'names.json'));
    const first = generateKey('dup', {}, at).record;
    await store.addKey(first);
    await expect(store.addKey(generateKey('dup', {}, at).record)).rejects.toThrow(/already named "dup"/);
    await store.revokeKey(first.id, at);
    await store.addKey(generateKey('dup', {}, at).record);
    expect((await store.listKeys()).map((k) => [k.name, Boolean(k.revokedAt)])).toEqual([
      ['dup', true],
      ['dup', false],
    ]);
  });

  it('concurrent writers through the lock lose nothing', async () => {
    const file = path.join(dir, 'concurrent.json');
    const stores = [new FileKeyStore(file), new FileKeyStore(file), new FileKeyStore(file)];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        stores[i % 3].addUsage([{ keyId: `k${i % 2}`, minute: at.getTime(), requests: 1, inputTokens: i }]),
      ),
    );
    const rows = await stores[0].usage({ from: '2026-07-15', to: '2026-07-15' });
    expect(rows.map((r) => [r.keyId, r.requests])).toEqual([
      ['k0', 30],
      ['k1', 30],
    ]);
    expect(rows.reduce((s, r) => s + r.inputTokens, 0)).toBe((59 * 60) / 2);
  });

  it('breaks a lock left by a process that is gone', async () => {
    const file = path.join(dir, 'stale.json');
    writeFileSync(`${file}.lock`, '999999999 deadbeef\n');
    await new FileKeyStore(file).addKey(generateKey('after-crash', {}, at).record);
    expect((await new FileKeyStore(file).listKeys()).map((k) => k.name)).toEqual(['after-crash']);
  });

  it('a file that is not a key file is reported, naming it', async () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{"something": "else"}');
    await expect(new FileKeyStore(file).listKeys()).rejects.toThrow(KeyStoreError);
    await expect(new FileKeyStore(file).listKeys()).rejects.toThrow(/broken\.json is not a systemone-judge keys file/);
  });
});

describe('the server on a key file', () => {
  const file = path.join(dir, 'server.json');
  const store = new FileKeyStore(file);
  let server: JudgeServer;

  beforeAll(async () => {
    server = await startJudgeServer({
      apiKeys: [ENV_KEY],
      backend: uniformBackend(),
      keys: { store: { kind: 'file', file }, cacheTtlMs: 0 },
      log: () => undefined,
    });
  });
  afterAll(async () => server?.close());

  const body = JSON.stringify({
    model: 'jev-latest',
    state: 'The door is open.',
    questions: { q: { type: 'noul', instructions: 'Open?' } },
  });
  const judge = (key: string) =>
    fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  const usage = async (key: string, query = '') => {
    const response = await fetch(`${server.url}/v1/usage${query}`, { headers: { authorization: `Bearer ${key}` } });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown> & { total: Record<string, number> },
    };
  };

  it('answers a key from the file, counts its usage per day, and shows the cost at the default price', async () => {
    const { key, record } = generateKey('file-user', {});
    await store.addKey(record);
    let tokens = 0;
    for (let i = 0; i < 3; i++) {
      const response = await judge(key);
      expect(response.status).toBe(200);
      tokens += ((await response.json()) as { usage: { input_tokens: number } }).usage.input_tokens;
    }
    const report = await usage(key);
    expect(report.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(report.body).toMatchObject({
      key: { id: record.id, name: 'file-user' },
      to: today,
      price: { currency: 'USD', input_per_million: 0.042, output_per_million: 0 },
      days: [{ date: today, requests: 3, input_tokens: tokens, output_tokens: 0 }],
      total: { requests: 3, input_tokens: tokens, output_tokens: 0 },
    });
    expect(report.body.total.cost).toBeCloseTo((tokens * 0.042) / 1e6, 12);
    expect(await store.usage({ keyId: record.id, from: today, to: today })).toEqual([
      { keyId: record.id, day: today, requests: 3, inputTokens: tokens },
    ]);
  });

  it('env keys keep working, with their own usage; another key does not see it', async () => {
    expect((await judge(ENV_KEY)).status).toBe(200);
    const report = await usage(ENV_KEY);
    expect(report.body).toMatchObject({ key: { id: envKeyId(ENV_KEY), name: '(env key)' }, total: { requests: 1 } });
    const other = generateKey('other-user', {});
    await store.addKey(other.record);
    expect((await usage(other.key)).body.total).toMatchObject({ requests: 0, input_tokens: 0 });
  });

  it("GET /v1/usage: a bad date is a 400 naming the parameter; the range is the caller's", async () => {
    const bad = await usage(ENV_KEY, '?from=2026-13-01');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/from must be a date written YYYY-MM-DD/);
    const past = await usage(ENV_KEY, '?from=2020-01-01&to=2020-01-31');
    expect(past.body).toMatchObject({ from: '2020-01-01', to: '2020-01-31', days: [], total: { requests: 0 } });
    expect((await usage('wrong-key')).status).toBe(401);
  });

  it("over the rate limit: 429 with retry-after in Jev's envelope", async () => {
    const { key, record } = generateKey('slow', { ratePerSecond: 0.01 });
    await store.addKey(record);
    expect((await judge(key)).status).toBe(200);
    const refused = await judge(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({
      detail: { error_type: 'rate_limit_exceeded', message: expect.stringMatching(/0\.01 requests per second/) },
    });
    expect((await usage(key)).body.total.requests).toBe(1);
  });

  it('five concurrent calls through the unmodified SDK on a 2/s key all succeed with its default retries', async () => {
    const { key, record } = generateKey('burst', { ratePerSecond: 2 });
    await store.addKey(record);
    const told: number[] = [];
    // The SDK's own fetch option, only to see what the server told it; the SDK's retry policy is its default.
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 429) told.push(Number(response.headers.get('retry-after-ms')));
      return response;
    };
    const sdk = new TypeSafeClient({ apiKey: key, baseURL: server.url, fetch: watching, logLevel: 'off' });
    const call = () => sdk.systemOne({ state: 'The door is open.', questions: { q: noul('Open?') } });
    const answers = await Promise.all(Array.from({ length: 5 }, call));
    expect(answers.map((answer) => answer.answers.q.type)).toEqual(Array(5).fill('noul'));
    expect(told.length).toBeGreaterThanOrEqual(3);
    expect(new Set(told).size, `distinct retry times, told: ${told.join(', ')}`).toBe(told.length);
    expect((await usage(key)).body.total.requests).toBe(5);
  });

  it('over the monthly tokens: 429 until next month', async () => {
    const { key, record } = generateKey('monthly', { monthlyTokens: 1 });
    await store.addKey(record);
    expect((await judge(key)).status).toBe(200);
    const refused = await judge(key);
    expect(refused.status).toBe(429);
    expect(JSON.stringify(await refused.json())).toMatch(/1 input tokens for this month; the limit resets at/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a key revoked in the file is refused on the next request (cache lifetime 0)', async () => {
    const { key, record } = generateKey('to-revoke', {});
    await store.addKey(record);
    expect((await judge(key)).status).toBe(200);
    await new FileKeyStore(file).revokeKey(record.id, new Date());
    expect((await judge(key)).status).toBe(401);
  });
});
