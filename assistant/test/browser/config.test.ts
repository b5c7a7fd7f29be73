// The browser service's settings from its environment: the key is required, defaults (the sessions' profiles folder
// under HOME), and bad values named.
import { describe, expect, it } from 'vitest';

import { browserServiceConfigFromEnv } from '../../src/browser/config';
import { AssistantInputError } from '../../src/errors';

const KEY = { ASSISTANT_BROWSER_KEY: 'a-long-enough-secret-key', HOME: '/home/assistant' };

describe('browserServiceConfigFromEnv', () => {
  it('needs a key of 16 characters or more', () => {
    for (const env of [{}, { ASSISTANT_BROWSER_KEY: 'short' }]) {
      const error = (() => {
        try {
          browserServiceConfigFromEnv(env);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(AssistantInputError);
      expect((error as AssistantInputError).field).toBe('ASSISTANT_BROWSER_KEY');
      expect((error as Error).message).not.toContain('short');
    }
  });

  it('defaults to loopback, port 8790 and Debian’s Chromium', () => {
    expect(browserServiceConfigFromEnv(KEY)).toMatchObject({
      host: '127.0.0.1',
      port: 8790,
      chromiumPath: '/usr/bin/chromium',
      concurrency: 2,
      queue: 16,
      renderTimeoutMs: 30_000,
      maxPageBytes: 20 * 1024 * 1024,
      maxRedirects: 5,
      allow: [],
      sessions: {
        profilesDir: '/home/assistant/.local/state/judge-assistant/browser-profiles',
        maxTasks: 3,
        maxActiveMs: 300_000,
        maxPages: 30,
        idleMs: 600_000,
      },
    });
  });

  it('keeps the profiles under XDG_STATE_HOME when it is set, and needs the folder when there is no HOME', () => {
    expect(browserServiceConfigFromEnv({ ...KEY, XDG_STATE_HOME: '/var/state' }).sessions.profilesDir).toBe(
      '/var/state/judge-assistant/browser-profiles',
    );
    expect(() => browserServiceConfigFromEnv({ ASSISTANT_BROWSER_KEY: KEY.ASSISTANT_BROWSER_KEY })).toThrow(
      /^ASSISTANT_BROWSER_PROFILES_DIR: is required when HOME is not set/,
    );
  });

  it('reads every variable, and protects n8n and the judge', () => {
    const config = browserServiceConfigFromEnv({
      ...KEY,
      ASSISTANT_BROWSER_HOST: '0.0.0.0',
      ASSISTANT_BROWSER_PORT: '0',
      ASSISTANT_CHROMIUM_PATH: '/opt/chromium/chrome',
      ASSISTANT_BROWSER_CONCURRENCY: '4',
      ASSISTANT_BROWSER_QUEUE: '0',
      ASSISTANT_BROWSER_RENDER_TIMEOUT_MS: '10000',
      ASSISTANT_BROWSER_MAX_PAGE_BYTES: '1048576',
      ASSISTANT_BROWSER_MAX_REDIRECTS: '2',
      ASSISTANT_OUTBOUND_ALLOW: 'localhost:3000',
      ASSISTANT_BROWSER_PROFILES_DIR: '/srv/assistant/profiles/',
      ASSISTANT_BROWSER_MAX_TASKS: '5',
      ASSISTANT_BROWSER_TASK_SECONDS: '120',
      ASSISTANT_BROWSER_TASK_PAGES: '10',
      ASSISTANT_BROWSER_TASK_IDLE_SECONDS: '60',
      N8N_PORT: '5680',
      ASSISTANT_JUDGE_URL: 'http://127.0.0.1:8787',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      chromiumPath: '/opt/chromium/chrome',
      concurrency: 4,
      queue: 0,
      renderTimeoutMs: 10_000,
      maxPageBytes: 1_048_576,
      maxRedirects: 2,
      allow: ['localhost:3000'],
      sessions: {
        profilesDir: '/srv/assistant/profiles/',
        maxTasks: 5,
        maxActiveMs: 120_000,
        maxPages: 10,
        idleMs: 60_000,
      },
    });
    expect(config.protect).toContainEqual(expect.objectContaining({ host: 'localhost', port: 5680 }));
    expect(config.protect).toContainEqual(expect.objectContaining({ host: '127.0.0.1', port: 8787 }));
  });

  it.each([
    ['ASSISTANT_BROWSER_PORT', '70000'],
    ['ASSISTANT_BROWSER_CONCURRENCY', '0'],
    ['ASSISTANT_BROWSER_RENDER_TIMEOUT_MS', 'soon'],
    ['ASSISTANT_BROWSER_MAX_PAGE_BYTES', '-1'],
    ['ASSISTANT_OUTBOUND_ALLOW', 'no-port'],
    ['ASSISTANT_BROWSER_PROFILES_DIR', 'relative/profiles'],
    ['ASSISTANT_BROWSER_MAX_TASKS', '0'],
    ['ASSISTANT_BROWSER_TASK_SECONDS', '5'],
    ['ASSISTANT_BROWSER_TASK_PAGES', 'many'],
    ['ASSISTANT_BROWSER_TASK_IDLE_SECONDS', '-1'],
  ])('names %s when it is "%s"', (name, value) => {
    expect(() => browserServiceConfigFromEnv({ ...KEY, [name]: value })).toThrow(new RegExp(`^${name}: `));
  });
});
