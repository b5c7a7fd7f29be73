// The server with a local model that takes seconds per run: other requests are answered while it runs (the run is
// on an inference worker, not on the server's thread), and a request whose client hangs up stops its model work.
// No timing thresholds: the tests check the order in which things happen.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OnnxBackend } from '../../src/backends/onnx';
import { startJudgeServer, type JudgeServer, type LogLine } from '../../src/server';
import { generate, tempDir } from './fixtures';

const KEY = 'onnx-server-key';
const MODEL = 'judge-slow-2026-11-01';
// Attention over every pair of positions: with this width, a ~5,000-token state takes seconds on one thread.
const SLOW = { seed: 5, hidden: 256, layers: 4, heads: 4, maxPositions: 16384 };

const longState = (words: number) => 'the export failed again today and nobody knows why '.repeat(words / 9);

function post(server: JudgeServer, body: unknown, init: { key?: string; signal?: AbortSignal } = {}) {
  return fetch(`${server.url}/v1/systemone`, {
    method: 'POST',
    headers: { authorization: `Bearer ${init.key ?? KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: init.signal,
  });
}

describe('server with a slow local model', () => {
  const tmp = tempDir('onnx-server-');
  let server: JudgeServer | undefined;
  const logs: LogLine[] = [];
  let dirs: { plain: string; none: string };

  beforeAll(() => {
    dirs = {
      plain: generate(tmp.path, 'plain', { ...SLOW, layout: 'plain-past' }).dir,
      none: generate(tmp.path, 'none', { ...SLOW, layout: 'no-past' }).dir,
    };
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    logs.length = 0;
  });
  afterAll(() => tmp.remove());

  const start = (dir: string) =>
    startJudgeServer({
      apiKeys: [KEY],
      backend: { kind: 'onnx', models: [{ id: MODEL, dir }], intraOpNumThreads: 1, kvCacheBytes: 0 },
      log: (line) => logs.push(line),
    });

  it('answers /healthz and a 401 while a local run of seconds is in flight', async () => {
    server = await start(dirs.plain);
    const order: string[] = [];
    const slow = post(server, {
      model: MODEL,
      state: longState(1500),
      questions: { failing: { type: 'noul', instructions: 'Is the export failing?' } },
    }).then(async (response) => {
      order.push('local run');
      return response;
    });
    await vi.waitFor(() => expect(server!.admission.stats.running).toBe(1), { timeout: 10_000 });

    const health = fetch(`${server.url}/healthz`, { headers: { authorization: `Bearer ${KEY}` } }).then((r) => {
      order.push('healthz');
      return r;
    });
    const refused = post(server, { model: MODEL, state: 's', questions: {} }, { key: 'wrong-key' }).then((r) => {
      order.push('401');
      return r;
    });
    expect((await health).status).toBe(200);
    expect((await refused).status).toBe(401);
    expect(order).not.toContain('local run');

    const answered = await slow;
    expect(answered.status).toBe(200);
    expect(order.at(-1)).toBe('local run');
    const line = logs.find((l) => l.path === '/v1/systemone' && l.status === 200)!;
    expect(line.input_tokens).toBeGreaterThan(4000);
  });

  it('stops the model work of a request whose client hangs up, and frees its admission slot', async () => {
    server = await start(dirs.none);
    const backend = server.engine.backend as OnnxBackend;
    const questions = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Question ${i}?` }]),
    );
    const client = new AbortController();
    const request = post(server, { model: MODEL, state: longState(900), questions }, { signal: client.signal });
    await vi.waitFor(() => expect(server!.admission.stats.running).toBe(1), { timeout: 10_000 });
    client.abort();
    await expect(request).rejects.toThrow();

    // The slot is given back only once the worker has really stopped, after at most the run it was in.
    await vi.waitFor(() => expect(server!.admission.stats).toEqual({ running: 0, waiting: 0 }), { timeout: 30_000 });
    expect(logs.find((l) => l.path === '/v1/systemone')).toMatchObject({
      status: 499,
      error_type: 'client_closed_request',
    });
    // Without a past, each question is one full pass: six runs had the request gone on.
    expect(backend.stats.runs).toBeGreaterThanOrEqual(1);
    expect(backend.stats.runs).toBeLessThan(6);

    // The worker is free again: the next request is answered.
    const next = await post(server, { model: MODEL, state: 'short', questions: { q0: questions.q0 } });
    expect(next.status).toBe(200);
  });
});
