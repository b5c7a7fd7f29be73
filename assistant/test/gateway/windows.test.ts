import { describe, expect, it } from 'vitest';
import { chooseWindow, knownWindow, liveWindowOf, parseWindowOverrides } from '../../src/gateway/windows';

describe('model windows', () => {
  it('knows common models by id, with or without a provider prefix or Ollama tag', () => {
    expect(knownWindow('gpt-4o-mini')).toBe(128_000);
    expect(knownWindow('openai/gpt-4.1')).toBe(1_047_576);
    expect(knownWindow('qwen2.5:7b-instruct')).toBe(32_768);
    expect(knownWindow('llama3.1:8b')).toBe(131_072);
    expect(knownWindow('my-own-finetune')).toBeNull();
  });

  it('reads live windows from model lists as servers report them', () => {
    expect(liveWindowOf({ id: 'x', context_length: 65_536 })).toBe(65_536); // OpenRouter
    expect(liveWindowOf({ id: 'x', max_model_len: 8_192 })).toBe(8_192); // vLLM
    expect(liveWindowOf({ id: 'x', meta: { n_ctx: 4_096 } })).toBe(4_096); // llama.cpp
    expect(liveWindowOf({ id: 'x' })).toBeNull();
  });

  it('prefers the live value, then the override, then the table', () => {
    const overrides = parseWindowOverrides('gpt-4o-mini=50000, my-model=9000');
    expect(chooseWindow('gpt-4o-mini', 16_000, overrides)).toEqual({ tokens: 16_000, source: 'live' });
    expect(chooseWindow('gpt-4o-mini', null, overrides)).toEqual({ tokens: 50_000, source: 'override' });
    expect(chooseWindow('gpt-4o', null, overrides)).toEqual({ tokens: 128_000, source: 'table' });
    expect(chooseWindow('unknown-model', null, overrides)).toBeNull();
  });

  it('names a bad override', () => {
    expect(() => parseWindowOverrides('gpt-4o')).toThrow('ASSISTANT_MODEL_WINDOWS: "gpt-4o" must be model=tokens');
    expect(() => parseWindowOverrides('gpt-4o=12k')).toThrow('"gpt-4o=12k"');
    expect(() => parseWindowOverrides('gpt-4o=10')).toThrow('from 256');
  });
});
