// Secrets scrubbed from error texts before they are stored: bot tokens in API paths, bearer tokens, keys, passwords.
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../src';

describe('scrubSecrets', () => {
  it('redacts bot tokens, bearer tokens, API keys and passwords, and keeps the rest', () => {
    const text =
      'POST http://127.0.0.1:9/bot7000000001:e2e-fake-telegram-token-abcdefghijk/sendMessage failed; ' +
      'Authorization: Bearer abcdefgh12345678; key sk-e2e-fake-llm-key-0001; x-api-key=k3y-value-123; ' +
      'postgres://user:hunter2@db:5432/x; token 7000000001:e2e-fake-telegram-token-abcdefghijk';
    const scrubbed = scrubSecrets(text);
    for (const secret of ['e2e-fake-telegram-token', 'abcdefgh12345678', 'fake-llm-key', 'k3y-value-123', 'hunter2']) {
      expect(scrubbed).not.toContain(secret);
    }
    expect(scrubbed).toContain('/sendMessage failed');
    expect(scrubbed).toContain('postgres://user:[redacted]@db:5432/x');
    expect(scrubSecrets('400 Bad Request: chat not found')).toBe('400 Bad Request: chat not found');
  });
});
