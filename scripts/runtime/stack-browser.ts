// The stack's browser service (docs/WEB.md), when Chromium is there, for read_page's JavaScript pages.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { startBrowserService, type BrowserServiceProcess } from './browser';
import type { Cleanup, Log, StackBrowser, StackOptions } from './stack-types';

/**
 * A snap's Chromium (Ubuntu) sees its own /tmp, not the host's, and of the home folder only what is not hidden: the
 * profile folder playwright makes in the temporary folder must be in the user folder then (docs/RUNTIME.md, "Ubuntu").
 */
export function snapTmpDir(chromium: string, userFolder: string): { TMPDIR?: string } {
  if (!chromium.startsWith('/snap/')) return {};
  const tmp = path.join(userFolder, 'browser-tmp');
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  return { TMPDIR: tmp };
}

/**
 * The browser service, when wanted and Chromium is there; its URL and key go into n8n's environment. Users' browser
 * profiles (their sign-ins) live in the user folder's browser-profiles/, so they survive restarts of the stack.
 */
export async function startBrowserIfWanted(
  options: StackOptions,
  userFolder: string,
  env: Record<string, string>,
  cleanups: Cleanup[],
  log: Log,
): Promise<{ process: BrowserServiceProcess; stack: StackBrowser } | undefined> {
  const chromium = process.env.ASSISTANT_CHROMIUM_PATH || '/usr/bin/chromium';
  const wanted = options.browser ?? existsSync(chromium);
  if (!wanted) {
    log(`browser service: not started (no Chromium at ${chromium}); read_page renders no JavaScript pages`);
    return undefined;
  }
  const logFile = path.join(userFolder, 'browser-service.log');
  const settings = {
    chromiumPath: chromium,
    allow: env.ASSISTANT_OUTBOUND_ALLOW ? env.ASSISTANT_OUTBOUND_ALLOW.split(/[\s,]+/).filter(Boolean) : [],
    n8nPort: Number(env.N8N_PORT),
    judgeUrl: env.ASSISTANT_JUDGE_URL,
    env: {
      ASSISTANT_BROWSER_PROFILES_DIR: path.join(userFolder, 'browser-profiles'),
      ...snapTmpDir(chromium, userFolder),
    },
    output: { logFile },
  };
  let current = await startBrowserService(settings);
  cleanups.push(() => current.stop());
  log(`browser service on ${current.url}`);
  const first = current;
  return {
    process: first,
    stack: {
      url: first.url,
      key: first.key,
      logFile,
      pid: () => current.pid(),
      whenExited: () => current.whenExited(),
      restart: async () => {
        await current.stop();
        current = await startBrowserService({ ...settings, port: first.port, key: first.key });
      },
    },
  };
}
