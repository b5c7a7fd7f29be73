// The console's routes on a real server with a key file: sign-in, its refusals (wrong password and its limit,
// missing CSRF token, another site, expired session), and keys and usage as the CLI keeps them.
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { uniformBackend } from '../helpers/exact-backend';

const PASSWORD = 'correct horse battery staple';
const ENV_KEY = 'console-routes-env-key';
let clock = Date.UTC(2026, 10, 28, 12);
let server: JudgeServer;

beforeAll(async () => {
  server = await startJudgeServer({
    apiKeys: [ENV_KEY],
    backend: uniformBackend(),
    keys: { store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'console-')), 'keys.json') } },
    console: {
      password: PASSWORD,
      sessionHours: 1,
      now: () => clock,
      signInLimits: { perAddress: 3, overall: 10, windowMs: 60_000 },
    },
    log: () => undefined,
  });
});
afterAll(() => server?.close());

interface Reply {
  status: number;
  body: { [key: string]: unknown; detail?: { message?: string } | { loc: string[]; msg: string }[] };
  cookie: string | null;
}

async function call(route: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${server.url}/console/api/${route}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return {
    status: response.status,
    body: (await response.json()) as Reply['body'],
    cookie: response.headers.get('set-cookie'),
  } satisfies Reply;
}

const message = (reply: Reply) => (reply.body.detail as { message?: string }).message;

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const reply = await call('session', { method: 'POST', body: { password: PASSWORD } });
  expect(reply.status).toBe(200);
  return { cookie: reply.cookie!.split(';')[0], csrf: reply.body.csrf_token as string };
}

describe('signing in', () => {
  it('sets an HttpOnly, SameSite=Strict cookie for /console on the right password, and the session reads back', async () => {
    const reply = await call('session', { method: 'POST', body: { password: PASSWORD } });
    expect(reply.status).toBe(200);
    expect(reply.cookie).toMatch(/^judge_console=v1\.[^;]+; Path=\/console; Max-Age=3600; HttpOnly; SameSite=Strict$/);
    const session = await call('session', { headers: { cookie: reply.cookie!.split(';')[0] } });
    expect(session.body).toMatchObject({ signed_in: true, csrf_token: reply.body.csrf_token });
  });

  it('refuses a wrong password, then every try from that address for the rest of the window, the right one too', async () => {
    const address = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 3; i++) {
      const wrong = await call('session', { method: 'POST', body: { password: `guess ${i}` }, headers: address });
      expect([wrong.status, message(wrong)]).toEqual([401, 'That is not the console password.']);
    }
    const held = await call('session', { method: 'POST', body: { password: PASSWORD }, headers: address });
    expect(held.status).toBe(429);
    expect(message(held)).toMatch(/^Too many wrong passwords; try again in \d+ s\.$/);
    // Another address is not held back.
    expect((await call('session', { method: 'POST', body: { password: PASSWORD } })).status).toBe(200);
    clock += 61_000;
    expect((await call('session', { method: 'POST', body: { password: PASSWORD }, headers: address })).status).toBe(
      200,
    );
  });

  it('signs in behind the HTTPS proxy under its public name, with a Secure cookie', async () => {
    // As Caddy forwards it: the public Host kept, the scheme in X-Forwarded-Proto (fetch cannot set Host).
    const body = JSON.stringify({ password: PASSWORD });
    const { url } = server;
    const reply = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
      const req = request(`${url}/console/api/session`, {
        method: 'POST',
        headers: {
          host: 'judge.example.com',
          origin: 'https://judge.example.com',
          'x-forwarded-proto': 'https',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode!, cookie: String(res.headers['set-cookie']) });
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(reply.status).toBe(200);
    expect(reply.cookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('refuses a sign-in from another site', async () => {
    const reply = await call('session', {
      method: 'POST',
      body: { password: PASSWORD },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(reply.status).toBe(403);
    const foreign = await call('session', {
      method: 'POST',
      body: { password: PASSWORD },
      headers: { origin: 'https://attacker.example' },
    });
    expect([foreign.status, message(foreign)]).toEqual([
      403,
      'The console only takes sign-ins from its own page (the Origin is another site).',
    ]);
  });

  it('refuses an expired session, and one after signing out is gone from the browser', async () => {
    const { cookie, csrf } = await signIn();
    clock += 3_600_000;
    const expired = await call('keys', { headers: { cookie } });
    expect([expired.status, message(expired)]).toEqual([401, 'Sign in to the console: the session has expired.']);
    const fresh = await signIn();
    const out = await call('session', {
      method: 'DELETE',
      headers: { cookie: fresh.cookie, 'x-csrf-token': fresh.csrf },
    });
    expect(out.cookie).toMatch(/^judge_console=; Path=\/console; Max-Age=0;/);
    expect(csrf).not.toBe(fresh.csrf);
  });
});

describe('keys and usage', () => {
  it('refuses reading keys without a session, and a change without the CSRF token or with another session’s', async () => {
    expect((await call('keys')).status).toBe(401);
    const { cookie } = await signIn();
    const other = await signIn();
    const body = { name: 'no token' };
    const missing = await call('keys', { method: 'POST', body, headers: { cookie } });
    expect([missing.status, message(missing)]).toEqual([
      403,
      'The X-CSRF-Token header is missing or not this session’s; reload the console.',
    ]);
    const foreign = await call('keys', { method: 'POST', body, headers: { cookie, 'x-csrf-token': other.csrf } });
    expect(foreign.status).toBe(403);
    expect((await call('keys', { headers: { cookie } })).body.keys).toEqual([]);
  });

  it('creates a key (shown once, with its limits), which then judges and shows its usage; revoked, it is refused', async () => {
    const { cookie, csrf } = await signIn();
    const headers = { cookie, 'x-csrf-token': csrf };
    const created = await call('keys', {
      method: 'POST',
      body: { name: 'billing bot', limits: { ratePerSecond: 5, monthlyTokens: 1_000_000 } },
      headers,
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^s1k_[0-9a-f]{12}_/);
    expect(created.body).toMatchObject({ name: 'billing bot', limits: { ratePerSecond: 5, monthlyTokens: 1_000_000 } });
    const listed = (await call('keys', { headers })).body.keys as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        id: created.body.id,
        name: 'billing bot',
        created_at: created.body.created_at,
        revoked_at: null,
        limits: created.body.limits,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(key);

    const judge = () =>
      fetch(`${server.url}/v1/systemone`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          model: 'jev-latest',
          state: 'hello',
          questions: { q: { type: 'noul', instructions: 'Is it a greeting?' } },
        }),
      });
    const judged = await judge();
    expect(judged.status).toBe(200);
    const tokens = ((await judged.json()) as { usage: { input_tokens: number } }).usage.input_tokens;
    const today = new Date().toISOString().slice(0, 10);
    const usage = await call(`usage?from=${today}&to=${today}`, { headers });
    expect(usage.body.rows).toEqual([
      {
        date: today,
        key_id: created.body.id,
        key_name: 'billing bot',
        requests: 1,
        input_tokens: tokens,
        cost: expect.any(Number),
      },
    ]);

    const revoked = await call(`keys/${created.body.id}`, { method: 'DELETE', headers });
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the server's key cache (1 s by default)
    expect((await judge()).status).toBe(401);
  });

  it('names the field of a bad key, refuses a name an active key has, and an unknown key', async () => {
    const { cookie, csrf } = await signIn();
    const headers = { cookie, 'x-csrf-token': csrf };
    const bad = await call('keys', { method: 'POST', body: { name: 'x', limits: { tokensPerMinute: 1.5 } }, headers });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      {
        loc: ['body', 'limits.tokensPerMinute'],
        msg: 'must be a whole number > 0, or null for none',
        type: 'value_error',
      },
    ]);
    expect((await call('keys', { method: 'POST', body: { name: '' }, headers })).status).toBe(422);
    expect((await call('keys', { method: 'POST', body: { name: 'twice' }, headers })).status).toBe(201);
    const taken = await call('keys', { method: 'POST', body: { name: 'twice' }, headers });
    expect(taken.status).toBe(409);
    expect((await call('keys/0123456789ab', { method: 'DELETE', headers })).status).toBe(404);
    const range = await call('usage?from=2026-02-30', { headers });
    expect([range.status, message(range)]).toEqual([400, 'from must be a date written YYYY-MM-DD, got "2026-02-30".']);
  });
});

describe('when it is off', () => {
  it('says how to switch it on: a password, and a key store', async () => {
    const bare = await startJudgeServer({ apiKeys: [ENV_KEY], backend: uniformBackend(), log: () => undefined });
    const noStore = await startJudgeServer({
      apiKeys: [ENV_KEY],
      backend: uniformBackend(),
      console: { password: PASSWORD },
      log: () => undefined,
    });
    try {
      const off = await fetch(`${bare.url}/console/api/session`);
      expect(off.status).toBe(503);
      expect(await off.text()).toContain('set JUDGE_CONSOLE_PASSWORD');
      expect(await (await fetch(`${noStore.url}/console/api/session`)).text()).toContain('no key store');
      expect(bare.console).toEqual({ on: false, reason: expect.stringContaining('JUDGE_CONSOLE_PASSWORD') });
      expect((await fetch(`${bare.url}/console`)).status).toBe(200);
    } finally {
      await bare.close();
      await noStore.close();
    }
  });
});
