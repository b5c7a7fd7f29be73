// The web tools' settings from the environment: defaults, each variable, and bad values named.
import { describe, expect, it } from 'vitest';

import { AssistantInputError } from '../../src/errors';
import { DEFAULT_DUCKDUCKGO_URL, webSettingsFromEnv } from '../../src/web';

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AssistantInputError);
    return (error as AssistantInputError).field;
  }
  return undefined;
};

describe('webSettingsFromEnv', () => {
  it('defaults to DuckDuckGo, no browser service, and protects n8n on 5678', () => {
    const settings = webSettingsFromEnv({});
    expect(settings.search).toEqual({ backend: 'duckduckgo', baseUrl: DEFAULT_DUCKDUCKGO_URL, timeoutMs: 10_000 });
    expect(settings.read).toEqual({
      maxBytes: 10 * 1024 * 1024,
      timeoutMs: 20_000,
      maxRedirects: 5,
      cacheTtlMs: 300_000,
    });
    expect(settings.browser).toBeUndefined();
    expect(settings.allow).toEqual([]);
    expect(settings.protect).toContainEqual(expect.objectContaining({ host: 'localhost', port: 5678 }));
  });

  it('reads every variable', () => {
    const settings = webSettingsFromEnv({
      ASSISTANT_SEARCH_BACKEND: 'SearXNG',
      ASSISTANT_SEARXNG_URL: 'http://searxng:8080',
      ASSISTANT_SEARCH_TIMEOUT_MS: '5000',
      ASSISTANT_READ_MAX_BYTES: '2048',
      ASSISTANT_READ_TIMEOUT_MS: '7000',
      ASSISTANT_READ_MAX_REDIRECTS: '2',
      ASSISTANT_READ_CACHE_MS: '0',
      ASSISTANT_BROWSER_URL: 'http://127.0.0.1:8790',
      ASSISTANT_BROWSER_KEY: 'k'.repeat(24),
      ASSISTANT_OUTBOUND_ALLOW: '127.0.0.1:3000',
      N8N_PORT: '5999',
    });
    expect(settings.search).toEqual({ backend: 'searxng', baseUrl: 'http://searxng:8080/', timeoutMs: 5000 });
    expect(settings.read).toEqual({ maxBytes: 2048, timeoutMs: 7000, maxRedirects: 2, cacheTtlMs: 0 });
    expect(settings.browser).toEqual({ url: 'http://127.0.0.1:8790/', key: 'k'.repeat(24) });
    expect(settings.allow).toEqual(['127.0.0.1:3000']);
    expect(settings.protect).toContainEqual(expect.objectContaining({ host: 'localhost', port: 5999 }));
  });

  it('names the variable of a bad value', () => {
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_SEARCH_BACKEND: 'google' }))).toBe('ASSISTANT_SEARCH_BACKEND');
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_SEARCH_BACKEND: 'searxng' }))).toBe('ASSISTANT_SEARXNG_URL');
    expect(
      fieldOf(() => webSettingsFromEnv({ ASSISTANT_SEARCH_BACKEND: 'searxng', ASSISTANT_SEARXNG_URL: 'searxng:8080' })),
    ).toBe('ASSISTANT_SEARXNG_URL');
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_DUCKDUCKGO_URL: 'ftp://x.example/' }))).toBe(
      'ASSISTANT_DUCKDUCKGO_URL',
    );
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_READ_MAX_BYTES: '10MB' }))).toBe('ASSISTANT_READ_MAX_BYTES');
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_READ_MAX_REDIRECTS: '99' }))).toBe(
      'ASSISTANT_READ_MAX_REDIRECTS',
    );
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_BROWSER_URL: 'http://127.0.0.1:8790' }))).toBe(
      'ASSISTANT_BROWSER_KEY',
    );
    expect(fieldOf(() => webSettingsFromEnv({ ASSISTANT_OUTBOUND_ALLOW: 'localhost' }))).toBe(
      'ASSISTANT_OUTBOUND_ALLOW',
    );
  });
});
