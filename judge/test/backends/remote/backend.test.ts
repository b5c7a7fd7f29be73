// The remote System One backend, forwarding to a real System One server on loopback (another judge server),
// plus a misbehaving provider to check strict response validation and error mapping.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteBackend } from '../../../src/backends/remote';
import { BackendError } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import { ApiError } from '../../../src/protocol/errors';
import type { ChoiceAnswer, ScoreAnswer } from '../../../src/protocol/types';
import { startJudgeServer, type JudgeServer } from '../../../src/server';
import { EXACT_MODEL, ExactBackend } from '../../helpers/exact-backend';

const UPSTREAM_KEY = 'upstream-key-123456';
let upstream: JudgeServer;
let upstreamBackend: ExactBackend;

beforeAll(async () => {
  upstreamBackend = new ExactBackend((q) =>
    q.options.length === 2
      ? [0.3, 0.7]
      : q.options.map((_, i) => (i + 1) / ((q.options.length * (q.options.length + 1)) / 2)),
  );
  upstream = await startJudgeServer({ apiKeys: [UPSTREAM_KEY], backend: upstreamBackend, log: () => undefined });
});
afterAll(async () => upstream.close());

const request = {
  model: 'jev-latest',
  state: { ticket: 'x' },
  questions: {
    n: { type: 'noul', instructions: 'q' },
    c: { type: 'choice', criteria: { a: null, b: null, c: 'see' } },
    s: { type: 'score', criteria: ['lo', 'mid', 'hi', 'max'] },
  },
};

describe('RemoteBackend', () => {
  it("serves the provider's models, forwards the request, and reads its answers back exactly", async () => {
    const backend = await createRemoteBackend({ baseUrl: upstream.url + '/', apiKey: UPSTREAM_KEY });
    expect(backend.models().map((m) => m.id)).toEqual([EXACT_MODEL.id, 'exact-latest', 'jev-latest']);
    const engine = new JudgeEngine({ backend, aliases: { 'jev-latest': EXACT_MODEL.id } });
    const direct = (await upstream.engine.judge(request)).response;
    const { response } = await engine.judge(request);
    expect(response.model).toBe(EXACT_MODEL.id);
    expect(response.usage).toEqual(direct.usage);
    // The provider's backend says nothing of its method: "remote", calibration left out (scoring.test.ts).
    expect(response.answers.n).toEqual({ type: 'noul', noul: expect.closeTo(0.3, 12), method: 'remote' });
    const c = response.answers.c as ChoiceAnswer;
    const s = response.answers.s as ScoreAnswer;
    for (const key of ['a', 'b', 'c'])
      expect(c.probabilities[key]).toBeCloseTo((direct.answers.c as ChoiceAnswer).probabilities[key], 12);
    expect(c.confidence).toBeCloseTo((direct.answers.c as ChoiceAnswer).confidence, 12);
    expect(s.score).toBeCloseTo((direct.answers.s as ScoreAnswer).score, 12);
    expect(s.legend).toEqual({ '0': 'lo', '1': 'mid', '2': 'hi', '3': 'max' });
    // The provider saw the caller's state and questions, not our rendering.
    expect(upstreamBackend.jobs.at(-1)!.state).toEqual(request.state);
  });

  it('a provider that refuses our key → 502 BackendError (the caller is not at fault)', async () => {
    await expect(createRemoteBackend({ baseUrl: upstream.url, apiKey: 'wrong' })).rejects.toMatchObject({
      status: 502,
      code: 'upstream_auth_failed',
    });
  });

  it('an unreachable provider → 502 with a clear message', async () => {
    const error = await createRemoteBackend({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }).catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.message).toMatch(/Could not reach the System One provider/);
  });
});

describe('RemoteBackend against a misbehaving provider', () => {
  let bad: Server;
  let url: string;
  let reply: { status: number; body: unknown } = { status: 200, body: {} };

  beforeAll(async () => {
    bad = createServer((req, res) => {
      const body =
        req.url === '/v1/models'
          ? { status: 200, body: { models: [{ name: 'm-1', description: 'd', release_date: '2026-01-01' }] } }
          : reply;
      res.writeHead(body.status, { 'content-type': 'application/json' });
      res.end(typeof body.body === 'string' ? body.body : JSON.stringify(body.body));
    });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(bad.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => bad.close(() => r())));

  const one = { model: 'm-1', state: 's', questions: { c: { type: 'choice', criteria: { a: null, b: null } } } };
  const good = { type: 'choice', choice: 'a', probabilities: { a: 0.6, b: 0.4 }, confidence: 0.2 };

  it.each([
    ['a non-JSON body', 'oops', /not JSON/],
    ['no answers', { model: 'm-1', usage: { input_tokens: 1, output_tokens: 0 } }, /answers is not an object/],
    [
      'a missing answer',
      { model: 'm-1', answers: {}, usage: { input_tokens: 1, output_tokens: 0 } },
      /answers\["c"\] is missing/,
    ],
    [
      'a wrong type',
      { answers: { c: { ...good, type: 'score' } }, usage: { input_tokens: 1, output_tokens: 0 } },
      /type is "score"/,
    ],
    [
      'renamed labels',
      { answers: { c: { ...good, probabilities: { A: 0.6, B: 0.4 } } }, usage: { input_tokens: 1, output_tokens: 0 } },
      /has labels/,
    ],
    [
      'probabilities not summing to 1',
      { answers: { c: { ...good, probabilities: { a: 0.6, b: 0.6 } } }, usage: { input_tokens: 1, output_tokens: 0 } },
      /sum to 1.2/,
    ],
    [
      'a negative probability',
      { answers: { c: { ...good, probabilities: { a: 1.5, b: -0.5 } } }, usage: { input_tokens: 1, output_tokens: 0 } },
      /outside \[0, 1\]/,
    ],
    [
      'a choice outside the labels',
      { answers: { c: { ...good, choice: 'z' } }, usage: { input_tokens: 1, output_tokens: 0 } },
      /choice is not one of the labels/,
    ],
    ['no usage', { answers: { c: good } }, /usage.input_tokens/],
  ])('%s → 502 upstream_invalid_response', async (_name, body, message) => {
    reply = { status: 200, body };
    const engine = new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: url, apiKey: 'k' }) });
    const error = await engine.judge(one).catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(message);
  });

  it('maps provider errors: 422/400 → 400 (its words only in the log), 429 → 503, 500 → 502', async () => {
    const engine = new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: url, apiKey: 'k' }) });
    reply = { status: 422, body: { detail: [{ loc: ['body', 'questions', 'c'], msg: 'bad', type: 'x' }] } };
    const rejected = await engine.judge(one).catch((e) => e);
    expect(rejected).toBeInstanceOf(BackendError);
    expect(rejected.status).toBe(400);
    expect(rejected.message).toMatch(/body.questions.c: bad/);
    const answer = (rejected as BackendError).toApiError();
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer.body()).toEqual({
      detail: { error_type: 'invalid_request_error', message: 'The System One provider refused the request.' },
    });
    reply = { status: 429, body: { detail: 'slow down' } };
    expect(await engine.judge(one).catch((e) => e.status)).toBe(503);
    reply = { status: 500, body: 'boom' };
    expect(await engine.judge(one).catch((e) => e.status)).toBe(502);
  });

  it("passes a judge's 402 budget_exceeded on as it came: the status, the error type and the gateway's sentence", async () => {
    const engine = new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: url, apiKey: 'k' }) });
    const sentence = 'The monthly budget of job check is spent; it resets on 2026-12-01.';
    reply = { status: 402, body: { detail: { error_type: 'budget_exceeded', message: sentence } } };
    const refused = await engine.judge(one).catch((e) => e);
    expect(refused).toBeInstanceOf(BackendError);
    expect(refused.status).toBe(402);
    expect((refused as BackendError).toApiError().body()).toEqual({
      detail: { error_type: 'budget_exceeded', message: sentence },
    });
    reply = { status: 402, body: { detail: { error_type: 'payment_required', message: 'pay us' } } };
    expect(await engine.judge(one).catch((e) => e.status)).toBe(502);
  });
});
