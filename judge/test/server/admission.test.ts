// The admission queue, alone and in the server: a concurrency cap, a bounded FIFO queue (full → 503 with
// retry-after), a per-request deadline (→ 504, the task's signal aborted) and the caller's abort. Tasks are
// deferred promises released by the test; the one timer involved is the deadline under test.
import { TypeSafeClient, InternalServerError, noul } from '@typesafe-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Backend, ScoreJob, ScoreResult } from '../../src/engine/backend';
import { ApiError } from '../../src/protocol/errors';
import { Admission } from '../../src/server/admission';
import { startJudgeServer, type JudgeServer, type LogLine } from '../../src/server';
import { deferred, type Deferred } from '../helpers/deferred';
import { EXACT_MODEL, ExactBackend } from '../helpers/exact-backend';

/** A task that runs until released (or aborted, if it listens), recording what it saw. */
function held<T = string>(value: T) {
  const gate = deferred();
  const started = deferred();
  const task = {
    started,
    signal: undefined as AbortSignal | undefined,
    release: () => gate.resolve(),
    run: async (signal: AbortSignal) => {
      task.signal = signal;
      started.resolve();
      await gate.promise;
      return value;
    },
  };
  return task;
}

const statusOf = (error: unknown) => (error as ApiError).status;

describe('Admission', () => {
  it('runs `concurrency` tasks at once, queues the next in order, refuses beyond the queue (503)', async () => {
    const admission = new Admission({ concurrency: 2, queueLength: 2, deadlineMs: 600_000 });
    const tasks = [held('a'), held('b'), held('c'), held('d')];
    const order: string[] = [];
    const results = tasks.map((t, i) =>
      admission.run(async (signal) => {
        order.push('abcd'[i]);
        return t.run(signal);
      }),
    );
    await Promise.all([tasks[0].started.promise, tasks[1].started.promise]);
    expect(admission.stats).toEqual({ running: 2, waiting: 2 });
    expect(order).toEqual(['a', 'b']);

    const refused = await admission.run(async () => 'e').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(statusOf(refused)).toBe(503);
    expect((refused as ApiError).errorType).toBe('overloaded');
    expect((refused as ApiError).headers).toEqual({ 'retry-after': '1' });
    expect((refused as ApiError).body()).toEqual({
      detail: {
        error_type: 'overloaded',
        message: expect.stringMatching(/at capacity \(2 requests running, 2 waiting\)/),
      },
    });

    tasks[1].release();
    await tasks[2].started.promise;
    expect(order).toEqual(['a', 'b', 'c']);
    for (const t of tasks) t.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(admission.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('with queueLength 0, refuses as soon as every slot is taken', async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 0, deadlineMs: 600_000 });
    const first = held('first');
    const running = admission.run(first.run);
    expect(statusOf(await admission.run(async () => 'x').catch((e: unknown) => e))).toBe(503);
    first.release();
    expect(await running).toBe('first');
    expect(await admission.run(async () => 'then')).toBe('then');
  });

  it('a freed slot goes to the first waiter, not to a newcomer', async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 600_000 });
    const first = held('first');
    const waiter = held('waiter');
    const a = admission.run(first.run);
    const b = admission.run(waiter.run);
    first.release();
    // In the same tick as the release, a newcomer finds the slot handed over and the queue empty: it waits.
    await a;
    const c = admission.run(async () => 'newcomer');
    await waiter.started.promise;
    expect(admission.stats).toEqual({ running: 1, waiting: 1 });
    waiter.release();
    expect(await Promise.all([b, c])).toEqual(['waiter', 'newcomer']);
  });

  it('the deadline answers 504 and aborts the running task; its slot is held until the task really ends', async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 20 });
    const stubborn = held('late'); // ignores its signal, like a native model run that cannot be interrupted
    const error = await admission.run(stubborn.run).catch((e: unknown) => e);
    expect(statusOf(error)).toBe(504);
    expect((error as ApiError).errorType).toBe('deadline_exceeded');
    expect(stubborn.signal?.aborted).toBe(true);
    expect(admission.stats).toEqual({ running: 1, waiting: 0 });
    stubborn.release();
    await vi.waitFor(() => expect(admission.stats).toEqual({ running: 0, waiting: 0 }));
  });

  it('a request whose deadline passes while it waits leaves the queue with 504, and never runs', async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 20 });
    const first = held('first');
    const running = admission.run(first.run).catch((e: unknown) => e);
    let ran = false;
    const waiting = await admission
      .run(async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(statusOf(waiting)).toBe(504);
    expect(statusOf(await running)).toBe(504);
    first.release();
    await vi.waitFor(() => expect(admission.stats).toEqual({ running: 0, waiting: 0 }));
    expect(ran).toBe(false);
  });

  it("the caller's abort aborts the task and rejects with the caller's reason, waiting or running", async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 600_000 });
    const first = held('first');
    const callerA = new AbortController();
    const callerB = new AbortController();
    const a = admission.run(first.run, { signal: callerA.signal }).catch((e: unknown) => e);
    const b = admission.run(async () => 'never', { signal: callerB.signal }).catch((e: unknown) => e);
    await first.started.promise;
    const gone = new ApiError(499, 'gone', 'client_closed_request');
    callerB.abort(gone);
    expect(await b).toBe(gone);
    expect(admission.stats.waiting).toBe(0);
    callerA.abort(gone);
    expect(await a).toBe(gone);
    expect(first.signal?.aborted).toBe(true);
    first.release();
  });

  it("with the caller's controller, the task gets that controller's signal: its abort and the deadline both end it", async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 30 });
    const own = new AbortController();
    const first = held('first');
    const a = admission.run(first.run, { controller: own }).catch((e: unknown) => e);
    await first.started.promise;
    expect(first.signal).toBe(own.signal);
    const gone = new ApiError(499, 'gone', 'client_closed_request');
    own.abort(gone);
    expect(await a).toBe(gone);
    first.release();
    await vi.waitFor(() => expect(admission.stats).toEqual({ running: 0, waiting: 0 }));

    const late = new AbortController();
    const stubborn = held('late');
    const b = await admission.run(stubborn.run, { controller: late }).catch((e: unknown) => e);
    expect(statusOf(b)).toBe(504);
    expect(late.signal.aborted).toBe(true);
    expect(statusOf(late.signal.reason)).toBe(504);
    stubborn.release();
    await expect(admission.run(async () => 'x', { controller: late })).rejects.toBe(late.signal.reason);
  });

  it('refuses bad settings naming the field', () => {
    expect(() => new Admission({ concurrency: 0 })).toThrow(/admission.concurrency/);
    expect(() => new Admission({ queueLength: -1 })).toThrow(/admission.queueLength/);
    expect(() => new Admission({ deadlineMs: 1.5 })).toThrow(/admission.deadlineMs/);
  });
});

/** A backend whose every score() waits for the test, and reports the signal it was given. */
class GateBackend implements Backend {
  readonly kind = 'gate';
  readonly calls: { job: ScoreJob; gate: Deferred }[] = [];
  readonly arrived: Deferred[] = [deferred(), deferred(), deferred()];
  private readonly exact = new ExactBackend((q) => q.options.map(() => 1 / q.options.length));

  models() {
    return [EXACT_MODEL];
  }

  countTokens(model: string, text: string) {
    return this.exact.countTokens(model, text);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const gate = deferred();
    this.calls.push({ job, gate });
    this.arrived[this.calls.length - 1]?.resolve();
    job.signal?.addEventListener('abort', () => gate.reject(job.signal?.reason), { once: true });
    await gate.promise;
    return this.exact.score(job);
  }
}

describe('the server behind its admission queue', () => {
  let server: JudgeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const body = JSON.stringify({
    model: 'jev-latest',
    state: 's',
    questions: { q: { type: 'noul', instructions: 'x' } },
  });
  const post = (text = body) =>
    fetch(`${server!.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: text,
    });

  it('a full queue answers 503 overloaded with retry-after; bad requests still get their 4xx at once', async () => {
    const backend = new GateBackend();
    const logs: LogLine[] = [];
    server = await startJudgeServer({
      apiKeys: ['k'],
      backend,
      admission: { concurrency: 1, queueLength: 1 },
      log: (line) => logs.push(line),
    });
    const first = post();
    await backend.arrived[0].promise;
    const second = post();
    await vi.waitFor(() => expect(server!.admission.stats).toEqual({ running: 1, waiting: 1 }));

    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      detail: { error_type: 'overloaded', message: expect.stringMatching(/at capacity/) },
    });
    expect(logs.at(-1)).toMatchObject({ status: 503, error_type: 'overloaded' });

    // Invalid requests take no slot: their 422 comes even while the server is full.
    const invalid = await post('{"model": "jev-latest", "state": "s", "questions": {"": {"type": "noul"}}}');
    expect(invalid.status).toBe(422);

    // The TypeSafe SDK sees a 503 it can retry after the header's delay.
    const sdk = new TypeSafeClient({ apiKey: 'k', baseURL: server.url, retry: { maxRetries: 0 }, logLevel: 'off' });
    const error = await sdk.systemOne({ state: 's', questions: { q: noul('x') } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);

    backend.calls[0].gate.resolve();
    await backend.arrived[1].promise;
    backend.calls[1].gate.resolve();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('a request past its deadline answers 504 deadline_exceeded, and the backend sees its signal abort', async () => {
    const backend = new GateBackend();
    server = await startJudgeServer({ apiKeys: ['k'], backend, admission: { deadlineMs: 30 }, log: () => undefined });
    const response = await post();
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      detail: { error_type: 'deadline_exceeded', message: expect.stringMatching(/did not finish within 30 ms/) },
    });
    expect(backend.calls[0].job.signal?.aborted).toBe(true);
    await vi.waitFor(() => expect(server!.admission.stats).toEqual({ running: 0, waiting: 0 }));
  });
});
