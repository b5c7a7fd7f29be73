// What a finished model call tells failure awareness, in plain words, by how it ended.
import { describe, expect, it } from 'vitest';
import { describeCallFailure } from '../../src/gateway/call-failures';
import type { ModelCallRecord } from '../../src/gateway/ledger';

const call = (outcome: ModelCallRecord['outcome'], status: number, error?: string): ModelCallRecord => ({
  upstream: 'llm',
  route: 'chat',
  caller: { job: 'agent' },
  provider: 'api.example.com',
  model: 'm-1',
  latencyMs: 10,
  status,
  outcome,
  error,
});

describe('a model call as a failure', () => {
  it('names the provider, the model and what to do', () => {
    const provider = 'the chat model provider (api.example.com, model m-1)';
    expect(describeCallFailure(call('failed', 401, 'bad key'))).toEqual({
      source: 'provider',
      kind: 'key',
      message: `${provider} refused its API key (HTTP 401): bad key. Check ASSISTANT_LLM_API_KEY.`,
    });
    expect(describeCallFailure(call('failed', 429, 'slow down'))?.message).toBe(
      `${provider} is rate-limiting the assistant (HTTP 429): slow down`,
    );
    expect(describeCallFailure(call('failed', 503, 'down'))).toMatchObject({ kind: 'outage' });
    expect(describeCallFailure(call('failed', 400, 'bad'))).toMatchObject({ kind: 'http-400' });
    expect(describeCallFailure(call('timeout', 0, 'the caller stopped waiting'))?.message).toBe(
      `${provider} did not answer in time: the caller stopped waiting`,
    );
    expect(describeCallFailure(call('refused', 413, 'too long'))?.message).toBe(
      `the prompt was not sent to ${provider}: too long`,
    );
  });

  it("a spending cap's stop is a budget failure; an answered, cut or abandoned call is none", () => {
    expect(describeCallFailure(call('over_budget', 402, 'Your budget is spent'))).toEqual({
      source: 'budget',
      kind: 'over_budget',
      message: 'Your budget is spent',
    });
    for (const outcome of ['ok', 'cut', 'aborted'] as const)
      expect(describeCallFailure(call(outcome, 200))).toBeUndefined();
  });
});
