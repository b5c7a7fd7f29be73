// Two real judge servers on one Postgres 17: shared keys, revocation seen by both, usage adding up, shared token
// limits, 429 + retry-after in Jev's envelope, and the unmodified @typesafe-ai/sdk retrying it to success.
import { TypeSafeClient, noul } from '@typesafe-ai/sdk';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/keys/format';
import { KEYS_SCHEMA, PostgresKeyStore } from '../../src/keys/postgres-store';
import type { KeyLimits } from '../../src/keys/types';
import { startJudgeServer, type JudgeServer, type ServerOptions } from '../../src/server';
import { uniformBackend } from '../helpers/exact-backend';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { spawnCli } from './cli-helper';

let postgres: TestPostgres;
let admin: PostgresKeyStore;
const servers: JudgeServer[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres('judge_keys_test');
  // Replicas start together: the migrations must be safe to run at once.
  const opened = await Promise.all([1, 2, 3].map(() => PostgresKeyStore.open(postgres.url)));
  await Promise.all(opened.slice(1).map((s) => s.close()));
  admin = opened[0];
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await admin?.close();
  await postgres?.stop();
});

async function replica(keys: ServerOptions['keys'] = {}): Promise<JudgeServer> {
  const server = await startJudgeServer({
    apiKeys: [],
    backend: uniformBackend(),
    keys: { store: { kind: 'postgres', databaseUrl: postgres.url }, cacheTtlMs: 0, ...keys },
    log: () => undefined,
  });
  servers.push(server);
  return server;
}

async function newKey(name: string, limits: KeyLimits = {}): Promise<{ key: string; id: string }> {
  const { key, record } = generateKey(name, limits);
  await admin.addKey(record);
  return { key, id: record.id };
}

const request = {
  model: 'jev-latest',
  state: 'Refund please.',
  questions: { q: { type: 'noul', instructions: 'Refund?' } },
};

async function judge(server: JudgeServer, key: string) {
  const response = await fetch(`${server.url}/v1/systemone`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  const body = (await response.json()) as { usage?: { input_tokens: number }; detail?: unknown };
  return { status: response.status, headers: response.headers, body };
}

async function usageTotal(server: JudgeServer, key: string): Promise<{ requests: number; input_tokens: number }> {
  const response = await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { total: { requests: number; input_tokens: number } }).total;
}

/** Polls until `check` returns a value, failing after a generous bound. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, boundMs = 15_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('judge replicas on one Postgres', () => {
  it('the schema migrates once, whoever starts first', async () => {
    const pool = new Pool({ connectionString: postgres.url, max: 1 });
    try {
      const rows = await pool.query(`SELECT version FROM ${KEYS_SCHEMA}.schema_migrations ORDER BY version`);
      expect(rows.rows).toEqual([{ version: 1 }, { version: 2 }]);
      const stored = await pool.query(`SELECT hash FROM ${KEYS_SCHEMA}.api_keys`);
      expect(stored.rows.every((r: { hash: string }) => /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('a revoked key is refused by both replicas on their first request after the cache lifetime (0 here)', async () => {
    const [a, b] = [await replica(), await replica()];
    const { key, id } = await newKey('revoke-me');
    expect((await judge(a, key)).status).toBe(200);
    expect((await judge(b, key)).status).toBe(200);
    await admin.revokeKey(id, new Date());
    expect((await judge(a, key)).status).toBe(401);
    expect((await judge(b, key)).status).toBe(401);
  });

  it('with a cache lifetime, a revoked key is refused once it has passed (polled, no timing asserted)', async () => {
    const [a, b] = [await replica({ cacheTtlMs: 200 }), await replica({ cacheTtlMs: 200 })];
    const { key, id } = await newKey('revoke-later');
    expect((await judge(a, key)).status).toBe(200);
    expect((await judge(b, key)).status).toBe(200);
    await admin.revokeKey(id, new Date());
    for (const server of [a, b]) {
      const refused = await eventually(
        async () => ((await judge(server, key)).status === 401 ? true : undefined),
        '401',
      );
      expect(refused).toBe(true);
      expect((await judge(server, key)).status).toBe(401);
    }
  });

  it('usage adds up across replicas, per key and day', async () => {
    const [a, b] = [await replica(), await replica()];
    const { key, id } = await newKey('busy');
    let tokens = 0;
    for (const server of [a, b, a, b, b]) {
      const { status, body } = await judge(server, key);
      expect(status).toBe(200);
      tokens += body.usage!.input_tokens;
    }
    const total = await eventually(async () => {
      const t = await usageTotal(a, key);
      return t.requests === 5 ? t : undefined;
    }, 'five requests in the usage of replica A');
    expect(total.input_tokens).toBe(tokens);
    expect(await usageTotal(b, key)).toMatchObject({ requests: 5, input_tokens: tokens });
    const today = new Date().toISOString().slice(0, 10);
    expect(await admin.usage({ keyId: id, from: today, to: today })).toEqual([
      { keyId: id, day: today, requests: 5, inputTokens: tokens },
    ]);
  });

  it("keeps the upstream's tokens apart from the judge's metered input tokens (migration 2)", async () => {
    const keyId = 'upstream-counts';
    const minute = Date.UTC(2026, 6, 15, 12);
    const upstream = (promptTokens: number, cachedTokens: number) => ({ promptTokens, cachedTokens, outputTokens: 1 });
    await admin.addUsage([{ keyId, minute, requests: 1, inputTokens: 100, upstream: upstream(100, 64) }]);
    await admin.addUsage([{ keyId, minute: minute + 60_000, requests: 1, inputTokens: 50 }]);
    await admin.addUsage([
      { keyId, minute, requests: 1, inputTokens: 100, upstream: upstream(100, 96) },
      { keyId, minute: minute + 86_400_000, requests: 2, inputTokens: 7 },
    ]);
    expect(await admin.usage({ keyId, from: '2026-07-15', to: '2026-07-16' })).toEqual([
      {
        keyId,
        day: '2026-07-15',
        requests: 3,
        inputTokens: 250,
        upstream: { promptTokens: 200, cachedTokens: 160, outputTokens: 2 },
      },
      { keyId, day: '2026-07-16', requests: 2, inputTokens: 7 },
    ]);
  });

  it('the monthly token limit is shared: tokens used on A make B refuse with 429 + retry-after', async () => {
    const [a, b] = [await replica(), await replica()];
    const { key } = await newKey('monthly-shared', { monthlyTokens: 1 });
    expect((await judge(a, key)).status).toBe(200);
    await eventually(
      async () => ((await usageTotal(a, key)).requests === 1 ? true : undefined),
      'A to write its usage',
    );
    const refused = await judge(b, key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual({
      detail: { error_type: 'rate_limit_exceeded', message: expect.stringMatching(/input tokens for this month/) },
    });
    expect((await judge(a, key)).status).toBe(429);
  });

  it('the tokens-per-minute limit is shared too (both replicas on one fixed clock)', async () => {
    const midMinute = Date.UTC(2026, 6, 15, 12, 0, 20);
    const [a, b] = [await replica({ now: () => midMinute }), await replica({ now: () => midMinute })];
    const { key } = await newKey('tpm-shared', { tokensPerMinute: 1 });
    expect((await judge(a, key)).status).toBe(200);
    await eventually(async () => {
      const response = await fetch(`${a.url}/v1/usage?from=2026-07-15&to=2026-07-15`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await response.json()) as { total: { requests: number } }).total.requests === 1 ? true : undefined;
    }, 'A to write its usage');
    const refused = await judge(b, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('retry-after-ms')).toBe('40000');
    expect(JSON.stringify(refused.body)).toMatch(/1 input tokens per minute/);
  });

  it('the SDK (unmodified, default retry policy) gets a 429 with retry-after and its retry succeeds', async () => {
    const server = await replica();
    const { key } = await newKey('sdk-rate', { ratePerSecond: 0.5 });
    const statuses: number[] = [];
    const client = new TypeSafeClient({
      apiKey: key,
      baseURL: server.url,
      logLevel: 'off',
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    const ask = () => client.systemOne({ state: 'Refund please.', questions: { refund: noul('Refund?') } });
    expect((await ask()).answers.refund.type).toBe('noul');
    const second = await ask();
    expect(second.answers.refund.type).toBe('noul');
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
    expect((await usageTotal(server, key)).requests).toBe(2);
  });

  it('a key created by the CLI (keys create --database-url) works on a replica', async () => {
    const created = await spawnCli([
      'keys',
      'create',
      '--name',
      'from-cli',
      '--monthly-tokens',
      '1000000',
      '--database-url',
      postgres.url,
    ]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^s1k_/);
    expect(created.stderr).toMatch(/shown only this once/);
    expect((await judge(await replica(), key)).status).toBe(200);
    const listed = await spawnCli(['keys', 'list', '--json'], { JUDGE_KEYS_DATABASE_URL: postgres.url });
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ name: 'from-cli', revoked_at: null, limits: { monthlyTokens: 1_000_000 } }),
    );
    expect(listed.stdout).not.toContain(key);
  });
});
