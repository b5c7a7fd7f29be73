// The playground's routes over HTTP: the static page, the open mode (on by default on loopback only), its own rate
// limit and token quota, same-origin only, and never a way around keys when it is off.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config';
import type { ScoreJob, ScoreResult } from '../../src/engine/backend';
import { startJudgeServer, type JudgeServer, type ServerOptions } from '../../src/server';
import { isLoopbackAddress } from '../../src/server/playground';
import { RequestRate, TokenQuota } from '../../src/server/playground/quota';
import type { PlaygroundSettings } from '../../src/server/playground/settings';
import { deferred, type Deferred } from '../helpers/deferred';
import { ExactBackend } from '../helpers/exact-backend';

const KEY = 'playground-test-key';
const ramp = () =>
  new ExactBackend((q) => q.options.map((_, i) => (i + 1) / ((q.options.length * (q.options.length + 1)) / 2)));
const body = {
  model: 'jev-latest',
  state: 'I was charged twice; please refund one.',
  questions: {
    refund: { type: 'noul', instructions: 'Refund asked?' },
    team: { type: 'choice', criteria: { billing: null, tech: null, sales: null } },
    anger: { type: 'score', criteria: ['calm', 'annoyed', 'furious'] },
  },
};

const servers: JudgeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  playground?: Partial<PlaygroundSettings>,
  host = '127.0.0.1',
  more: Partial<ServerOptions> = {},
): Promise<JudgeServer> {
  const server = await startJudgeServer({
    apiKeys: [KEY],
    backend: ramp(),
    host,
    playground,
    log: () => undefined,
    ...more,
  });
  servers.push(server);
  return server;
}

/** The ramp backend, except that every score() waits until the test opens its gate. */
class GatedRamp extends ExactBackend {
  readonly gates: Deferred[] = [];
  readonly arrived = deferred();

  constructor() {
    super((q) => q.options.map((_, i) => (i + 1) / ((q.options.length * (q.options.length + 1)) / 2)));
  }

  override async score(job: ScoreJob): Promise<ScoreResult> {
    const gate = deferred();
    this.gates.push(gate);
    this.arrived.resolve();
    await gate.promise;
    return super.score(job);
  }
}

const judgeOpen = (server: JudgeServer, headers: Record<string, string> = {}, payload: unknown = body) =>
  fetch(`${server.url}/playground/judge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });

/** A raw request with a chosen Host header (fetch does not let a test set it). */
function rawPost(url: string, host: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const detailText = async (response: Response) => JSON.stringify(await response.json());

describe('playground routes', () => {
  it('serves the page and its assets with a strict CSP, and 404s anything else under /playground', async () => {
    const server = await start();
    const page = await fetch(`${server.url}/playground`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('<script src="/playground/app.js" defer></script>');
    expect((await fetch(`${server.url}/playground/`)).status).toBe(200);
    const js = await fetch(`${server.url}/playground/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toContain('/playground/judge');
    expect((await fetch(`${server.url}/playground/app.css`)).status).toBe(200);
    expect((await fetch(`${server.url}/playground/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/playground`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${server.url}/playground/judge`)).status).toBe(405);
  });

  it('is open on loopback by default: judges without a key, exactly as /v1/systemone does with one', async () => {
    const server = await start();
    expect(server.playground).toEqual({
      enabled: true,
      open: true,
      reason: 'the server listens on loopback (127.0.0.1)',
    });
    const config = (await (await fetch(`${server.url}/playground/config`)).json()) as { models: { name: string }[] };
    expect(config).toMatchObject({
      open: true,
      limits: { requestsPerMinute: 30, tokensPerHour: 200_000 },
      defaultModel: 'jev-latest',
    });
    expect(config.models.map((m) => m.name)).toContain('jev-latest');

    const open = await judgeOpen(server);
    expect(open.status).toBe(200);
    const openBody = (await open.json()) as { usage: { input_tokens: number } };
    const withKey = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    expect(openBody).toEqual(await withKey.json());
    expect(Number(open.headers.get('x-playground-tokens-left'))).toBe(200_000 - openBody.usage.input_tokens);
    // The open playground is no way into the API: /v1 still needs a key.
    const noKey = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(noKey.status).toBe(403);
  });

  it('answers bad requests as the API does', async () => {
    const server = await start();
    const schema = await judgeOpen(server, {}, { ...body, questions: { x: { type: 'maybe' } } });
    expect(schema.status).toBe(422);
    const text = await fetch(`${server.url}/playground/judge`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
  });

  it('is off when playground.open is false, and says so; the page still loads and takes a key', async () => {
    const server = await start({ open: false });
    expect(server.playground.open).toBe(false);
    const refused = await judgeOpen(server);
    expect(refused.status).toBe(403);
    expect(await detailText(refused)).toContain(
      "The playground's open mode is off: playground.open is false. Enter an API key",
    );
    expect((await fetch(`${server.url}/playground`)).status).toBe(200);
    const config = await (await fetch(`${server.url}/playground/config`)).json();
    expect(config).toEqual({
      open: false,
      reason: 'playground.open is false',
      defaultModel: 'jev-latest',
      limits: { requestsPerMinute: 30, tokensPerHour: 200_000 },
    });
  });

  it('is off by default when the server listens beyond loopback', async () => {
    const server = await start(undefined, '0.0.0.0');
    expect(server.playground.open).toBe(false);
    expect(server.playground.reason).toContain('the server listens on 0.0.0.0, not on loopback; set playground.open');
    const port = new URL(server.url).port;
    const refused = await fetch(`http://127.0.0.1:${port}/playground/judge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(403);
    expect(await detailText(refused)).toContain('not on loopback');
  });

  it('can be disabled: /playground is then an unknown route', async () => {
    const server = await start({ enabled: false });
    expect((await fetch(`${server.url}/playground`)).status).toBe(404);
    expect((await judgeOpen(server)).status).toBe(404);
  });

  it('refuses other sites: a foreign Origin, a cross-site fetch, a non-loopback Host (DNS rebinding)', async () => {
    const server = await start();
    expect((await judgeOpen(server, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await judgeOpen(server, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await judgeOpen(server, { origin: server.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const port = new URL(server.url).port;
    const rebound = await rawPost(`${server.url}/playground/judge`, `evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('loopback host name');
    expect((await rawPost(`${server.url}/playground/judge`, `localhost:${port}`)).status).toBe(200);
  });

  it('has its own rate limit: 429 with retry-after, naming its setting; keys are not bound by it', async () => {
    const server = await start({ requestsPerMinute: 2 });
    expect((await judgeOpen(server)).status).toBe(200);
    expect((await judgeOpen(server)).status).toBe(200);
    const limited = await judgeOpen(server);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await detailText(limited)).toContain('allows 2 requests a minute (playground.requestsPerMinute)');
    const withKey = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    expect(withKey.status).toBe(200);
  });

  it('has its own token quota: a request that would overrun it, and any once it is used up, get 429', async () => {
    const first = (await (await judgeOpen(await start())).json()) as { usage: { input_tokens: number } };
    const cost: number = first.usage.input_tokens;
    // Room for one request and a bit: the second does not fit in what is left.
    const server = await start({ tokensPerHour: cost + 10 });
    expect((await judgeOpen(server)).status).toBe(200);
    const over = await judgeOpen(server);
    expect(over.status).toBe(429);
    expect(await detailText(over)).toContain(
      `has 10 of its ${cost + 10} input tokens left this hour (playground.tokensPerHour)`,
    );
    const spent = await start({ tokensPerHour: cost });
    expect((await judgeOpen(spent)).status).toBe(200);
    const none = await judgeOpen(spent);
    expect(none.status).toBe(429);
    expect(await detailText(none)).toContain(
      `has used its ${cost} input tokens for this hour (playground.tokensPerHour)`,
    );
    expect(Number(none.headers.get('retry-after'))).toBeGreaterThan(3000);
  });
  it("judges through the server's one admission queue: a full queue answers 503 with retry-after", async () => {
    const backend = new GatedRamp();
    const server = await start(undefined, '127.0.0.1', { backend, admission: { concurrency: 1, queueLength: 0 } });
    // A keyed request holds the only slot…
    const keyed = fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    await backend.arrived.promise;
    expect(server.admission.stats).toEqual({ running: 1, waiting: 0 });
    // …so the open playground is refused like any caller, and its quota is not charged.
    const refused = await judgeOpen(server);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      detail: { error_type: 'overloaded', message: expect.stringMatching(/at capacity/) },
    });
    expect(refused.headers.get('x-playground-tokens-left')).toBe('200000');
    backend.gates[0].resolve();
    expect((await keyed).status).toBe(200);

    // With the slot free the playground's request runs inside it, timed like the API's.
    const open = judgeOpen(server);
    await vi.waitFor(() => expect(backend.gates).toHaveLength(2));
    expect(server.admission.stats).toEqual({ running: 1, waiting: 0 });
    backend.gates[1].resolve();
    const answered = await open;
    expect(answered.status).toBe(200);
    expect(answered.headers.get('server-timing')).toMatch(/^queue;dur=[\d.]+, engine;dur=[\d.]+, total;dur=[\d.]+$/);
    await vi.waitFor(() => expect(server.admission.stats).toEqual({ running: 0, waiting: 0 }));
  });

  it("answers the server's own token limits with 400 max_tokens_exceeded, not the quota's 429", async () => {
    // The quota has less left than the server's budget (the case that was once read as the quota's refusal).
    const long = { ...body, state: 'I was charged twice; please refund one. '.repeat(40) };
    const sequence = await start({ tokensPerHour: 50_000 }, '127.0.0.1', { limits: { maxSequenceTokens: 200 } });
    const tooLong = await judgeOpen(sequence, {}, long);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toEqual({
      detail: {
        error_type: 'max_tokens_exceeded',
        message: expect.stringMatching(/in one sequence; the limit is 200/),
      },
    });
    const budget = await start({ tokensPerHour: 450 }, '127.0.0.1', { limits: { maxInputTokens: 500 } });
    const tooMuch = await judgeOpen(budget, {}, long);
    expect(tooMuch.status).toBe(400);
    expect(await tooMuch.json()).toEqual({
      detail: { error_type: 'max_tokens_exceeded', message: expect.stringMatching(/the limit is 500\./) },
    });
    // Neither touched the quota; a request within the limits still judges.
    expect(tooMuch.headers.get('x-playground-tokens-left')).toBeNull();
    expect((await judgeOpen(budget)).status).toBe(200);
  });
});

describe('playground settings and limits', () => {
  const base = { apiKeys: ['k'], backend: { kind: 'remote', baseUrl: 'http://x', apiKey: 'r' } };

  it('reads playground settings and JUDGE_PLAYGROUND_OPEN, naming the field of a bad value', () => {
    expect(parseConfig(base).playground).toEqual({ enabled: true, requestsPerMinute: 30, tokensPerHour: 200_000 });
    expect(
      parseConfig({ ...base, playground: { open: true, requestsPerMinute: 5, tokensPerHour: 1000 } }).playground,
    ).toEqual({
      enabled: true,
      open: true,
      requestsPerMinute: 5,
      tokensPerHour: 1000,
    });
    expect(
      parseConfig({ ...base, playground: { open: true } }, { JUDGE_PLAYGROUND_OPEN: 'false' }).playground.open,
    ).toBe(false);
    const bad: [unknown, Record<string, string>, string][] = [
      [{ requestsPerMinute: 0 }, {}, 'config playground.requestsPerMinute: must be an integer ≥ 1, got 0'],
      [{ tokensPerHour: 'lots' }, {}, 'config playground.tokensPerHour: must be an integer ≥ 1'],
      [{ open: 'yes' }, {}, 'config playground.open: must be true or false, got "yes"'],
      [{ enabled: 1 }, {}, 'config playground.enabled: must be true or false'],
      [{ rate: 1 }, {}, 'config playground.rate: is not a playground setting'],
      ['on', {}, 'config playground: must be an object'],
      [{}, { JUDGE_PLAYGROUND_OPEN: 'maybe' }, 'config JUDGE_PLAYGROUND_OPEN: must be true or false, got "maybe"'],
    ];
    for (const [playground, env, message] of bad)
      expect(() => parseConfig({ ...base, playground }, env)).toThrow(message);
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost'])
      expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1'])
      expect(isLoopbackAddress(a)).toBe(false);
  });

  it('rate: a sliding minute; quota: reservations cap requests, the window starts over after an hour', () => {
    let now = 0;
    const rate = new RequestRate(2, 60_000, () => now);
    expect(rate.take().ok).toBe(true);
    now = 10_000;
    expect(rate.take().ok).toBe(true);
    expect(rate.take()).toEqual({ ok: false, retryAfterMs: 50_000 });
    now = 60_000;
    expect(rate.take().ok).toBe(true);

    const quota = new TokenQuota(100, 3_600_000, () => now);
    expect(quota.reserve(60)).toBe(60);
    expect(quota.reserve(60)).toBe(40);
    expect(quota.reserve(60)).toBe(0);
    quota.settle(60, 25);
    expect(quota.left()).toBe(35);
    quota.settle(40, 40);
    expect(quota.left()).toBe(35);
    now += 3_600_000;
    expect(quota.left()).toBe(100);
  });
});
