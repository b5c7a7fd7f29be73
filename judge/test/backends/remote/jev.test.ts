// The remote backend against a provider that answers like Jev: probabilities rounded to 2 decimals, its own
// versioned id in `model`, a model list with only moving names, errors in the {"detail": {error_type, message}}
// envelope, and a body that stalls. Upstream URLs and upstream words never reach the caller.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteBackend } from '../../../src/backends/remote';
import { BackendError } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import type { ChoiceAnswer, ScoreAnswer } from '../../../src/protocol/types';
import { startJudgeServer, type LogLine } from '../../../src/server';
import { deferred, type Deferred } from '../../helpers/deferred';

type Handler = (body: Record<string, unknown>, res: ServerResponse) => void;
let provider: Server;
let url: string;
const models: unknown = {
  models: [{ name: 'jev-latest', description: 'Alias of jev-1.13.0', release_date: '2026-03-01' }],
};
let handle: Handler;
const seen: Record<string, unknown>[] = [];
const stalls: Deferred[] = [];

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  provider = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/v1/models') return json(res, 200, models);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      seen.push(body);
      handle(body, res);
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const stall of stalls.splice(0)) stall.resolve();
});
afterAll(
  () =>
    new Promise<void>((r) => {
      provider.closeAllConnections();
      provider.close(() => r());
    }),
);

/** Jev's answer to the usual three questions, rounded to 2 decimals. */
const jevAnswer = (model = 'jev-1.13.0') => ({
  model,
  answers: {
    refund: { type: 'noul', noul: 0.98 },
    team: {
      type: 'choice',
      choice: 'billing',
      probabilities: { billing: 0.33, tech: 0.33, sales: 0.33 },
      confidence: 0.0,
    },
    anger: {
      type: 'score',
      score: 0.77,
      probabilities: { '0': 0.35, '1': 0.52, '2': 0.12 },
      legend: { '0': 'calm', '1': 'annoyed', '2': 'furious' },
      confidence: 0.31,
    },
  },
  usage: { input_tokens: 57, output_tokens: 0 },
});
const request = (model = 'jev-latest') => ({
  model,
  state: 'Charged twice for March.',
  questions: {
    refund: { type: 'noul', instructions: 'Refund?' },
    team: { type: 'choice', criteria: { billing: null, tech: null, sales: null } },
    anger: { type: 'score', criteria: ['calm', 'annoyed', 'furious'] },
  },
});

const engine = async (timeoutMs?: number) =>
  new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: url, apiKey: 'pk', timeoutMs }) });

describe('RemoteBackend with real Jev answers', () => {
  it("accepts 2-decimal probabilities (0.33 × 3) and answers with the provider's versioned id", async () => {
    handle = (_body, res) => json(res, 200, jevAnswer());
    const { response } = await (await engine()).judge(request());
    expect(seen.at(-1)!.model).toBe('jev-latest');
    expect(response.model).toBe('jev-1.13.0');
    expect(response.usage).toEqual({ input_tokens: 57, output_tokens: 0 });
    const team = response.answers.team as ChoiceAnswer;
    for (const p of Object.values(team.probabilities)) expect(p).toBeCloseTo(1 / 3, 12);
    const anger = response.answers.anger as ScoreAnswer;
    expect(anger.probabilities['1']).toBeCloseTo(0.52 / 0.99, 12);
    // Jev does not say how it scored: "remote", calibration left out.
    expect(response.answers.refund).toEqual({ type: 'noul', noul: expect.closeTo(0.98, 12), method: 'remote' });
  });

  it('still refuses distributions that are off by more than rounding', async () => {
    const bad = jevAnswer();
    bad.answers.team.probabilities = { billing: 0.5, tech: 0.33, sales: 0.33 };
    handle = (_body, res) => json(res, 200, bad);
    const error = await (await engine()).judge(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).message).toMatch(/sum to 1.16/);
  });

  it('accepts pinned ids of a name the provider lists only as <name>-latest, and forwards them unchanged', async () => {
    handle = (body, res) => json(res, 200, jevAnswer(body.model as string));
    const judge = await engine();
    const { response } = await judge.judge(request('jev-1.12.0'));
    expect(seen.at(-1)!.model).toBe('jev-1.12.0');
    expect(response.model).toBe('jev-1.12.0');
    await expect(judge.judge(request('other-1.0'))).rejects.toMatchObject({ status: 400, errorType: 'invalid_model' });
  });

  it("the provider's own refusal of a model is a 400 invalid_model in our words", async () => {
    handle = (_body, res) =>
      json(res, 400, { detail: { error_type: 'invalid_model', message: `No model at ${url}/internal` } });
    const error = (await (await engine()).judge(request('jev-0.1.0')).catch((e: unknown) => e)) as BackendError;
    expect(error.status).toBe(400);
    expect(error.message).toContain('/internal'); // the log has the provider's words
    expect(error.toApiError().body()).toEqual({
      detail: { error_type: 'invalid_model', message: 'The System One provider does not serve the requested model.' },
    });
  });

  it('a provider that sends its headers and then stalls the body → 504 upstream_timeout, not 500', async () => {
    handle = (_body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"model": "jev-1.13.0", "answers": {');
      const stall = deferred();
      stalls.push(stall);
      void stall.promise.then(() => res.end());
    };
    const error = (await (await engine(50)).judge(request()).catch((e: unknown) => e)) as BackendError;
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(504);
    expect(error.code).toBe('upstream_timeout');
    expect(error.message).toMatch(/reading the answer/);
  });

  it('a 429 from the provider → 503 with its retry-after', async () => {
    handle = (_body, res) =>
      json(res, 429, { detail: { error_type: 'rate_limit_exceeded', message: 'slow down' } }, { 'retry-after': '7' });
    const error = (await (await engine()).judge(request()).catch((e: unknown) => e)) as BackendError;
    expect(error.status).toBe(503);
    expect(error.toApiError().headers).toEqual({ 'retry-after': '7' });
  });
});

describe('a judge server in front of a failing provider', () => {
  it('never shows the caller the upstream URL or the upstream text; the log keeps both', async () => {
    const logs: LogLine[] = [];
    const server = await startJudgeServer({
      apiKeys: ['k'],
      backend: { kind: 'remote', baseUrl: url, apiKey: 'pk' },
      log: (line) => logs.push(line),
    });
    try {
      const call = () =>
        fetch(`${server.url}/v1/systemone`, {
          method: 'POST',
          headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
          body: JSON.stringify(request()),
        });
      handle = (_body, res) =>
        json(res, 500, { detail: { error_type: 'internal', message: 'db at 10.0.0.7 is down' } });
      const failed = await call();
      const text = await failed.text();
      expect(failed.status).toBe(502);
      expect(JSON.parse(text)).toEqual({
        detail: {
          error_type: 'upstream_error',
          message: 'The upstream model server failed. The server log has the details under this X-Request-Id.',
        },
      });
      expect(text).not.toContain(url);
      expect(text).not.toContain('10.0.0.7');
      expect(logs.at(-1)).toMatchObject({ status: 502, error_type: 'upstream_error' });
      expect(logs.at(-1)!.error).toContain(url);
      expect(logs.at(-1)!.error).toContain('10.0.0.7');

      handle = (_body, res) =>
        json(res, 422, { detail: [{ loc: ['body', 'state'], msg: `see ${url}/docs`, type: 'x' }] });
      const refused = await call();
      expect(refused.status).toBe(400);
      expect(await refused.text()).not.toContain(url);
    } finally {
      await server.close();
    }
  });
});
