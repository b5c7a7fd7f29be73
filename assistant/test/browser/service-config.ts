// The settings of a browser service started by a test: loopback, a free port, the real Chromium (Debian's
// /usr/bin/chromium, or ASSISTANT_CHROMIUM_PATH), small limits. Tests of sessions pass their own profiles folder.
import os from 'node:os';
import path from 'node:path';

import type { BrowserServiceConfig } from '../../src/browser/config';

export const TEST_KEY = 'test-browser-key-0123456789';
export const CHROMIUM = process.env.ASSISTANT_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A test service allowing `allow` (host:port entries) and protecting `protect`. */
export function testConfig(allow: string[], protect: BrowserServiceConfig['protect'] = []): BrowserServiceConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    key: TEST_KEY,
    chromiumPath: CHROMIUM,
    concurrency: 2,
    queue: 4,
    renderTimeoutMs: 20_000,
    maxPageBytes: 2 * 1024 * 1024,
    maxRedirects: 3,
    allow,
    protect,
    sessions: {
      profilesDir: path.join(os.tmpdir(), 'assistant-browser-test-profiles'),
      maxTasks: 3,
      maxActiveMs: 300_000,
      maxPages: 30,
      idleMs: 600_000,
    },
  };
}
