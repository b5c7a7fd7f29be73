// When a page asks for a one-time code: ask (with the attempt), say the last one was refused, stop after the limit.
import { describe, expect, it } from 'vitest';
import { MAX_CODES_PER_TASK, codeRequest } from '../../src/browser/code-handoff';

const page = (codesTyped: number, codeField: { ref: number; name: string } | null = { ref: 4, name: 'Code' }) => ({
  url: 'https://shop.example/2fa',
  codeField,
  codesTyped,
});

describe('code hand-off', () => {
  it('no code field → nothing to ask', () => {
    expect(codeRequest(page(0, null))).toEqual({ ask: false, reason: 'no_code_field' });
  });

  it('asks for the first code, and again after a refused one', () => {
    expect(codeRequest(page(0))).toEqual({
      ask: true,
      ref: 4,
      attempt: 1,
      question: 'shop.example asks for a one-time code ("Code"). Reply with the code.',
    });
    expect(codeRequest(page(1))).toMatchObject({ attempt: 2, question: expect.stringMatching(/not accepted/) });
  });

  it('stops asking after the limit, and says so', () => {
    const result = codeRequest(page(MAX_CODES_PER_TASK));
    expect(result).toMatchObject({ ask: false, reason: 'limit' });
    expect(result.ask === false && result.reason === 'limit' && result.message).toMatch(/after 3 codes/);
  });
});
