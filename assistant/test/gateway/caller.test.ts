import { describe, expect, it } from 'vitest';
import { isInteractive, splitCaller, withCaller } from '../../src/gateway/caller';

describe('the caller suffix of a model id', () => {
  it('round-trips job, user and ref, and keeps ids with ":" and "/" whole', () => {
    const model = withCaller('meta-llama/llama-3.1-8b:free', { job: 'expert:researcher', user: 'u-1', ref: 't:9' });
    expect(model).toBe('meta-llama/llama-3.1-8b:free#job=expert%3Aresearcher&user=u-1&ref=t%3A9');
    expect(splitCaller(model)).toEqual({
      model: 'meta-llama/llama-3.1-8b:free',
      caller: { job: 'expert:researcher', user: 'u-1', ref: 't:9' },
    });
  });

  it('replaces an existing suffix rather than stacking two', () => {
    expect(withCaller('qwen2.5:7b#job=agent', { job: 'judge' })).toBe('qwen2.5:7b#job=judge');
  });

  it('reads a model id without a suffix as an unknown caller', () => {
    expect(splitCaller('gpt-4o-mini')).toEqual({ model: 'gpt-4o-mini', caller: { job: 'unknown' } });
  });

  it('names what is wrong with a bad suffix', () => {
    expect(() => splitCaller('gpt-4o#user=1')).toThrow('model: the caller suffix needs a job (got "")');
    expect(() => splitCaller('gpt-4o#job=agent&user=a%20b')).toThrow(`model: the caller's user "a b" is not an id`);
    expect(() => splitCaller('#job=agent')).toThrow('model: the model id before the caller suffix is empty');
  });

  it('puts a person waiting first: the agent, experts and transcription', () => {
    expect(['agent', 'expert:planner', 'transcription'].every((job) => isInteractive({ job }))).toBe(true);
    expect(['heartbeat', 'briefing', 'judge', 'check', 'embeddings'].some((job) => isInteractive({ job }))).toBe(false);
  });
});
