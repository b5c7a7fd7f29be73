// The OpenAI-compatible backend under overload and failure: retries wait without holding a slot of the upstream
// limiter, a failed question aborts its siblings' upstream calls, and a caller who goes away aborts them all.
// No timing thresholds: fake upstream calls hang until the test releases them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenAIBackend, type OpenAIBackendOptions } from '../../../src/backends/openai';
import { BackendError } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import { startJudgeServer, type LogLine } from '../../../src/server';
import { deferred, type Deferred } from '../../helpers/deferred';
import {
  startFakeOpenAI,
  type ChatCompletionRequestBody,
  type FakeOpenAI,
  type FakeReply,
} from '../../fakes/openai-logprobs';

const ID = 'judge-openai-test-2026-01-01';
const YES = {
  topLogprobs: [
    { token: 'Yes', logprob: Math.log(0.7) },
    { token: 'No', logprob: Math.log(0.3) },
  ],
};
let fake: FakeOpenAI | undefined;
const holds: Deferred[] = [];

afterEach(async () => {
  for (const hold of holds.splice(0)) hold.resolve();
  await fake?.close();
  fake = undefined;
});

/** A reply held until the test ends (or releases it). */
function hang(): Promise<FakeReply> {
  const hold = deferred();
  holds.push(hold);
  return hold.promise.then(() => YES);
}

const promptOf = (body: ChatCompletionRequestBody) => body.messages.map((m) => m.content).join('\n');

async function engineWith(
  respond: (body: ChatCompletionRequestBody, i: number) => FakeReply | Promise<FakeReply>,
  options: Partial<OpenAIBackendOptions> = {},
) {
  fake = await startFakeOpenAI({ respond });
  const backend = new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'm', id: ID, ...options });
  return new JudgeEngine({ backend });
}

const questions = (...names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { type: 'noul', instructions: `question ${name}?` }]));

describe('OpenAIBackend under failure and overload', () => {
  it('a retry waits for its Retry-After without holding a slot: the next question goes out meanwhile', async () => {
    const secondSent = deferred();
    const engine = await engineWith(
      (body) => {
        if (promptOf(body).includes('question first?')) {
          return { status: 429, headers: { 'retry-after-ms': '600000' } };
        }
        secondSent.resolve();
        return YES;
      },
      { concurrency: 1, maxRetryAfterMs: 3_600_000 },
    );
    const caller = new AbortController();
    const judged = engine.judge({ model: ID, state: 's', questions: questions('first', 'second') }, caller.signal);
    judged.catch(() => undefined);
    // With one slot, the second question is only sent if the first one's 10-minute wait gave its slot back.
    await secondSent.promise;
    expect(fake!.requests.map((b) => promptOf(b).includes('question first?'))).toEqual([true, false]);
    // The wait itself ends as soon as the caller goes away.
    const reason = new Error('caller left');
    caller.abort(reason);
    await expect(judged).rejects.toBe(reason);
  });

  it('a failed question aborts the upstream calls of the other questions', async () => {
    const slowSent = deferred();
    const engine = await engineWith(
      async (body) => {
        if (promptOf(body).includes('question bad?')) {
          await slowSent.promise; // fail only once the other call is in flight
          return { status: 400, body: { error: { message: 'upstream says no', type: 'invalid_request_error' } } };
        }
        slowSent.resolve();
        return hang();
      },
      { concurrency: 2 },
    );
    const error = await engine
      .judge({ model: ID, state: 's', questions: questions('bad', 'slow', 'queued') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('upstream_rejected');
    // Every other call that reached the upstream is abandoned (the queued one is dropped or abandoned too).
    const bad = fake!.requests.findIndex((b) => promptOf(b).includes('question bad?'));
    const others = fake!.requests.map((_, i) => i).filter((i) => i !== bad);
    await vi.waitFor(() => expect([...fake!.abandoned].sort()).toEqual(others));
    expect(others.length).toBeGreaterThanOrEqual(1);
  });

  it('a caller who goes away aborts every upstream call in flight', async () => {
    const sent: Deferred[] = [deferred(), deferred()];
    let arrivals = 0;
    const engine = await engineWith(() => {
      sent[arrivals++]?.resolve();
      return hang();
    });
    const caller = new AbortController();
    const judged = engine.judge({ model: ID, state: 's', questions: questions('a', 'b') }, caller.signal);
    judged.catch(() => undefined);
    await Promise.all(sent.map((d) => d.promise));
    caller.abort(new Error('gone'));
    await expect(judged).rejects.toThrow('gone');
    await vi.waitFor(() => expect([...fake!.abandoned].sort()).toEqual([0, 1]));
  });

  it('through the server: a client that hangs up aborts the upstream call, logged as 499', async () => {
    const sent = deferred();
    fake = await startFakeOpenAI({
      respond: () => {
        sent.resolve();
        return hang();
      },
    });
    const logs: LogLine[] = [];
    const server = await startJudgeServer({
      apiKeys: ['k'],
      backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'm', id: ID },
      log: (line) => logs.push(line),
      // fetch may open a spare connection to the server after the abort; do not wait for it to time out.
      shutdownGraceMs: 0,
    });
    try {
      const client = new AbortController();
      const call = fetch(`${server.url}/v1/systemone`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'jev-latest', state: 's', questions: questions('q') }),
        signal: client.signal,
      });
      call.catch(() => undefined);
      await sent.promise;
      client.abort();
      await vi.waitFor(() => expect(fake!.abandoned).toEqual([0]));
      await vi.waitFor(() => expect(logs.at(-1)).toMatchObject({ status: 499, error_type: 'client_closed_request' }));
      expect(server.admission.stats).toEqual({ running: 0, waiting: 0 });
    } finally {
      await server.close();
    }
  });
});
