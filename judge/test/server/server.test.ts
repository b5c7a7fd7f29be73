// The HTTP server: auth, error envelope, hostile input (never a 500), headers, logs, shutdown.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer, type LogLine } from '../../src/server';
import { EXACT_MODEL, ExactBackend } from '../helpers/exact-backend';
import { call as httpCall } from '../helpers/http-call';

const KEY = 'test-key-0123456789';
const SECRET_STATE = 'State text that must never reach a log line';
let server: JudgeServer;
const logs: LogLine[] = [];

beforeAll(async () => {
  server = await startJudgeServer({
    apiKeys: ['other-key', KEY],
    backend: new ExactBackend((q) =>
      q.options.map((_, i) => (i + 1) / ((q.options.length * (q.options.length + 1)) / 2)),
    ),
    limits: { maxBodyBytes: 64 * 1024, maxJsonDepth: 32 },
    log: (line) => logs.push(line),
  });
});
afterAll(async () => server.close());

const valid = {
  model: 'jev-latest',
  state: SECRET_STATE,
  questions: {
    urgent: { type: 'noul', instructions: 'Urgent?' },
    team: { type: 'choice', criteria: { a: null, b: null } },
  },
};

/** A request with this server's key (other headers may replace it), its JSON body read back. */
async function call(
  path: string,
  init: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
) {
  const answer = await httpCall(server.url, path, { key: KEY, ...init });
  return { status: answer.status, headers: answer.headers, body: answer.body as Record<string, unknown> };
}

describe('judge server', () => {
  it('answers POST /v1/systemone with the resolved model and request id / Server-Timing headers', async () => {
    const res = await call('/v1/systemone', { body: JSON.stringify(valid), headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(EXACT_MODEL.id);
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect(res.headers.get('x-typesafe-request-id')).toBe('req-123');
    expect(res.headers.get('server-timing')).toMatch(/engine;dur=[\d.]+, total;dur=[\d.]+/);
    const line = logs.find((l) => l.request_id === 'req-123')!;
    expect(line).toMatchObject({
      method: 'POST',
      path: '/v1/systemone',
      status: 200,
      model: EXACT_MODEL.id,
      questions: 2,
      output_tokens: 0,
    });
    expect(line.input_tokens).toBeGreaterThan(0);
    expect(line.min_covered_mass).toBe(1);
  });

  it('never logs state text or keys', async () => {
    await call('/v1/systemone', { body: JSON.stringify({ ...valid, model: 'nope' }) });
    const all = JSON.stringify(logs);
    expect(all).not.toContain(SECRET_STATE);
    expect(all).not.toContain(KEY);
  });

  it('lists models and aliases, and /healthz', async () => {
    const models = await call('/v1/models');
    expect(models.status).toBe(200);
    expect(models.body).toEqual({
      models: [
        { name: EXACT_MODEL.id, description: EXACT_MODEL.description, release_date: EXACT_MODEL.releaseDate },
        {
          name: 'exact-latest',
          description: `Alias of ${EXACT_MODEL.id}: ${EXACT_MODEL.description}`,
          release_date: EXACT_MODEL.releaseDate,
        },
        {
          name: 'jev-latest',
          description: `Alias of ${EXACT_MODEL.id}: ${EXACT_MODEL.description}`,
          release_date: EXACT_MODEL.releaseDate,
        },
      ],
    });
    expect((await call('/healthz')).body).toEqual({ status: 'ok', backend: 'exact' });
    expect((await call('/healthz', { headers: { authorization: '' } })).status).toBe(403);
  });

  it.each([
    ['no key → 403', { authorization: '' }, 403, 'permission_error'],
    ['a non-bearer scheme → 403', { authorization: `Basic ${KEY}` }, 403, 'permission_error'],
    ['a wrong key → 401 authentication_error', { authorization: 'Bearer wrong' }, 401, 'authentication_error'],
  ])('%s', async (_name, headers, status, errorType) => {
    for (const path of ['/v1/systemone', '/v1/models']) {
      const res = await call(path, { body: path === '/v1/models' ? undefined : JSON.stringify(valid), headers });
      expect(res.status).toBe(status);
      // Jev's envelope: the error type inside `detail`, beside a sentence.
      expect(res.body).toEqual({ detail: { error_type: errorType, message: expect.any(String) } });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('unknown model → 400, schema → 422 naming the field, limits → 400 sentence', async () => {
    const unknown = await call('/v1/systemone', { body: JSON.stringify({ ...valid, model: 'gpt-9' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      detail: { error_type: 'invalid_model', message: expect.stringMatching(/Unknown model "gpt-9"/) },
    });

    const schema = await call('/v1/systemone', {
      body: JSON.stringify({ ...valid, questions: { urgency: { type: 'choice', criteria: 'high' } } }),
    });
    expect(schema.status).toBe(422);
    expect(schema.body).toEqual({
      detail: [{ loc: ['body', 'questions', 'urgency', 'criteria'], msg: expect.any(String), type: 'dict_type' }],
      error_type: 'invalid_request_error',
    });

    const limit = await call('/v1/systemone', {
      body: JSON.stringify({ ...valid, questions: { s: { type: 'score', criteria: ['x'] } } }),
    });
    expect(limit.status).toBe(400);
    expect(limit.body.detail).toEqual({
      error_type: 'invalid_request_error',
      message: expect.stringMatching(/"s" has 1 levels/),
    });
  });

  it.each([
    ['non-JSON', 'not json {', {}, 422],
    ['truncated JSON', '{"model": "jev-latest", "state": ', {}, 422],
    ['a JSON string', '"hello"', {}, 422],
    ['JSON null', 'null', {}, 422],
    [
      'deep nesting',
      '{"model":"jev-latest","state":' + '['.repeat(5000) + ']'.repeat(5000) + ',"questions":{}}',
      {},
      400,
    ],
    ['very deep nesting', '['.repeat(200000), {}, 413],
    ['text/plain', JSON.stringify(valid), { 'content-type': 'text/plain' }, 415],
    ['no content type', JSON.stringify(valid), { 'content-type': '' }, 415],
    ['a huge body', JSON.stringify({ ...valid, state: 'x'.repeat(100 * 1024) }), {}, 413],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), {}, 422],
    [
      '__proto__ keys',
      '{"__proto__":{"model":"x"},"model":"jev-latest","state":"s","questions":{"__proto__":{"type":"noul","instructions":"x"}}}',
      {},
      200,
    ],
    [
      'a question named constructor',
      JSON.stringify({
        ...valid,
        questions: { constructor: { type: 'choice', criteria: { toString: null, valueOf: null } } },
      }),
      {},
      200,
    ],
  ])('hostile input: %s → %s, never 500', async (_name, body, headers, status) => {
    const res = await call('/v1/systemone', { body: body as string, headers: headers as Record<string, string> });
    expect(res.status).toBe(status);
    if (status !== 200) expect(res.body).toHaveProperty('detail');
  });

  it('returns question names byte for byte, including __proto__ and constructor', async () => {
    const res = await call('/v1/systemone', {
      body: '{"model":"jev-latest","state":"s","questions":{"__proto__":{"type":"noul","instructions":"x"},"Ünïcode ✓ name":{"type":"noul","instructions":"y"}}}',
    });
    expect(Object.keys(res.body.answers as object)).toEqual(['__proto__', 'Ünïcode ✓ name']);
  });

  it('404 for unknown paths and 405 for wrong methods, in the envelope', async () => {
    const missing = await call('/v2/other');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toEqual({ error_type: 'not_found', message: expect.stringMatching(/No route/) });
    expect((await call('/v1/systemone')).status).toBe(405);
    expect((await call('/v1/models', { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('refuses an oversized declared Content-Length before reading it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(server.url);
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: '/v1/systemone',
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'content-length': String(10 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"model":');
    });
    expect(status).toBe(413);
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request, then stops accepting', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const backend = new ExactBackend(() => [0.5, 0.5]);
    const slow = {
      ...backend,
      kind: 'slow',
      models: () => backend.models(),
      countTokens: () => 1,
      score: async (job: Parameters<ExactBackend['score']>[0]) => (await gate, backend.score(job)),
    };
    const own = await startJudgeServer({ apiKeys: [KEY], backend: slow, log: () => undefined });
    const pending = fetch(own.url + '/v1/systemone', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'jev-latest', state: 's', questions: { q: { type: 'noul', instructions: 'x' } } }),
    });
    await new Promise((r) => setTimeout(r, 50));
    const closing = own.close();
    release();
    const response = await pending;
    expect(response.status).toBe(200);
    await closing;
    await expect(fetch(own.url + '/healthz', { headers: { authorization: `Bearer ${KEY}` } })).rejects.toThrow();
  });
});
