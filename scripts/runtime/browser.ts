// The browser service as a child process (node assistant/dist/browser/main.js): one headless Chromium behind a keyed
// HTTP API on loopback, used by read_page to render pages that need JavaScript (docs/WEB.md). Started like the judge:
// its own process group, only the environment it needs, ready when /health (with its key) says Chromium runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './n8n';
import { freePort, StartupFailed, stopProcess, waitFor } from './process';
import type { ProcessEnd } from './supervisor';

export const BROWSER_MAIN = path.join(REPO_ROOT, 'assistant', 'dist', 'browser', 'main.js');

export interface BrowserServiceOptions {
  /** Its port on 127.0.0.1. Default: a free port. */
  port?: number;
  /** The key clients send (X-API-Key). Default: a random one (read it back from the result). */
  key?: string;
  /** Default: Debian's /usr/bin/chromium (or ASSISTANT_CHROMIUM_PATH of this process). */
  chromiumPath?: string;
  /** `host:port` entries the pages may reach although loopback or private (ASSISTANT_OUTBOUND_ALLOW). */
  allow?: string[];
  /** n8n's port and the judge's URL: never reachable from a page, whatever `allow` says. */
  n8nPort?: number;
  judgeUrl?: string;
  /** More settings (ASSISTANT_BROWSER_CONCURRENCY, …_RENDER_TIMEOUT_MS, …_MAX_PAGE_BYTES, …). */
  env?: Record<string, string>;
  /** Where its log lines go: this process's output (default), nowhere, or a file (appended). */
  output?: 'inherit' | 'ignore' | { logFile: string };
  /** How long start-up may take; 30 s by default. */
  startTimeoutMs?: number;
}

export interface BrowserServiceProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  key: string;
  /** What n8n needs to use it: ASSISTANT_BROWSER_URL and ASSISTANT_BROWSER_KEY. */
  clientEnv: { ASSISTANT_BROWSER_URL: string; ASSISTANT_BROWSER_KEY: string };
  /** For a supervisor (scripts/runtime/supervisor.ts). */
  pid(): number;
  whenExited(): Promise<ProcessEnd>;
  /** SIGTERM (it closes Chromium), then SIGKILL to the whole group after 10 s. */
  stop(): Promise<void>;
}

export async function startBrowserService(options: BrowserServiceOptions = {}): Promise<BrowserServiceProcess> {
  if (!existsSync(BROWSER_MAIN)) {
    throw new Error(`the browser service is not built (missing ${BROWSER_MAIN}); run: npm run build -w assistant`);
  }
  const port = options.port ?? (await freePort());
  const key = options.key ?? randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...options.env,
    ASSISTANT_BROWSER_HOST: '127.0.0.1',
    ASSISTANT_BROWSER_PORT: String(port),
    ASSISTANT_BROWSER_KEY: key,
    ASSISTANT_OUTBOUND_ALLOW: (options.allow ?? []).join(' '),
  };
  const chromiumPath = options.chromiumPath ?? process.env.ASSISTANT_CHROMIUM_PATH;
  if (chromiumPath) env.ASSISTANT_CHROMIUM_PATH = chromiumPath;
  if (options.n8nPort !== undefined) env.N8N_PORT = String(options.n8nPort);
  if (options.judgeUrl !== undefined) env.ASSISTANT_JUDGE_URL = options.judgeUrl;

  const output = options.output ?? 'inherit';
  const logFd = typeof output === 'object' ? openSync(output.logFile, 'a') : undefined;
  const sink = logFd ?? (output as 'inherit' | 'ignore');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [BROWSER_MAIN], {
      env,
      stdio: ['ignore', sink, sink],
      detached: true, // its own process group (Chromium included): Ctrl-C goes to us, and we stop it in order
    });
  } finally {
    if (logFd !== undefined) closeSync(logFd);
  }
  const exit = new Promise<ProcessEnd>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exited = false;
  void exit.then(() => (exited = true));

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcess(child, { signal: 'SIGTERM', timeoutMs: 10_000 });
    try {
      process.kill(-child.pid!, 'SIGKILL'); // whatever is left of its group
    } catch {
      // the group is gone
    }
  };
  try {
    await waitFor(
      async () => {
        if (exited) throw new StartupFailed('the browser service exited during start-up (see its message above)');
        // Ready once Chromium runs (it listens a moment before, while Chromium starts).
        const response = await fetch(`${url}/health`, { headers: { 'x-api-key': key } });
        return response.ok && ((await response.json()) as { chromium: string | null }).chromium !== null;
      },
      { timeoutMs: options.startTimeoutMs ?? 30_000, what: `the browser service on ${url}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    port,
    key,
    clientEnv: { ASSISTANT_BROWSER_URL: url, ASSISTANT_BROWSER_KEY: key },
    pid: () => child.pid!,
    whenExited: () => exit,
    stop,
  };
}
