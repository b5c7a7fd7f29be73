import { describe, expect, it } from 'vitest';
import { countFromTokenizeAnswer, estimateChatPrompt, estimatePrompt, promptText } from '../../src/gateway/measure';

describe('measuring a prompt', () => {
  it('counts the tool schemas with the messages, as chat templates render them', () => {
    const tools = [{ type: 'function' as const, function: { name: 'remember', parameters: { type: 'object' } } }];
    const text = promptText({ messages: [{ role: 'user', content: 'hi' }], tools });
    expect(text).toContain('hi');
    expect(text).toContain('"name":"remember"');
  });

  it('estimates conservatively above and below: chars/3 (+4 per message) to refuse, chars/6 to find a cut', () => {
    expect(estimatePrompt('x'.repeat(600), 2)).toEqual({ tokens: 208, lower: 100, by: 'estimate' });
    const measure = estimateChatPrompt({ messages: [{ role: 'user', content: 'y'.repeat(300) }] });
    expect(measure.tokens).toBe(104);
  });

  it('counts code points, so a Japanese prompt is not undercounted', () => {
    expect(estimatePrompt('日本語のテキスト'.repeat(30)).tokens).toBe(80);
  });

  it('reads vLLM/SGLang and llama.cpp tokenizer answers', () => {
    expect(countFromTokenizeAnswer({ count: 12, max_model_len: 8192, tokens: [1, 2] })).toBe(12);
    expect(countFromTokenizeAnswer({ tokens: [1, 2, 3] })).toBe(3);
    expect(countFromTokenizeAnswer({ detail: 'Not Found' })).toBeNull();
  });
});
