// The model gateway as a child process (node assistant/dist/gateway/main.js, docs/MODELS.md): every model call of the
// product goes through it to the operator's providers. Started like the browser service: its own process group, only
// the settings it needs, ready when /healthz answers; the callers get its URL and key (gatewayClientEnv).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './n8n';
import { freePort, StartupFailed, stopProcess, waitFor } from './process';
import type { ProcessEnd } from './supervisor';

export const GATEWAY_MAIN = path.join(REPO_ROOT, 'assistant', 'dist', 'gateway', 'main.js');

/** The settings the gateway reads (assistant/src/gateway/config.ts); anything else stays out of its environment. */
const GATEWAY_SETTING =
  /^(ASSISTANT_(LLM|EMBEDDINGS|TRANSCRIPTION)_(BASE_URL|API_KEY)|JUDGE_OPENAI_(BASE_URL|API_KEY)|ASSISTANT_(MODEL_WINDOWS|MODEL_PRICES|MAX_OUTPUT_TOKENS|PROMPT_BUDGET_TOKENS|OLLAMA_MAX_CONTEXT|OLLAMA_KEEP_ALIVE|MODEL_SLOTS|GATEWAY_TIMEOUT_SECONDS))$/;

export interface GatewayProcessOptions {
  /** The operator's settings: the upstreams and limits are picked from them. */
  settings: Record<string, string | undefined>;
  /** The assistant's database (postgres://…), for the ledger. */
  databaseUrl: string;
  port?: number;
  key?: string;
  output?: 'inherit' | 'ignore' | { logFile: string };
  /** Tests only: runs the gateway in test mode, its caps' clock ahead by the seconds this file holds. */
  testClockFile?: string;
}

export interface GatewayProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  key: string;
  pid(): number;
  whenExited(): Promise<ProcessEnd>;
  stop(): Promise<void>;
}

/** What callers are configured with: the chat-model credential's base URL is ASSISTANT_GATEWAY_URL/llm/v1. */
export function gatewayClientEnv(
  gateway: { url: string; key: string },
  settings: Record<string, string | undefined>,
): Record<string, string> {
  return {
    ASSISTANT_GATEWAY_URL: gateway.url,
    ASSISTANT_GATEWAY_KEY: gateway.key,
    // Voice and embeddings stay off when their provider is not set (the credential's base URL is then empty).
    ASSISTANT_TRANSCRIPTION_GATEWAY_URL: settings.ASSISTANT_TRANSCRIPTION_BASE_URL?.trim()
      ? `${gateway.url}/transcription/v1`
      : '',
    ASSISTANT_EMBEDDINGS_GATEWAY_URL: settings.ASSISTANT_EMBEDDINGS_BASE_URL?.trim()
      ? `${gateway.url}/embeddings/v1`
      : '',
  };
}

export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  if (!existsSync(GATEWAY_MAIN))
    throw new Error(`the model gateway is not built (missing ${GATEWAY_MAIN}); run: npm run build -w assistant`);
  const port = options.port ?? (await freePort());
  const key = options.key ?? randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [name, value] of Object.entries(options.settings))
    if (GATEWAY_SETTING.test(name) && value !== undefined && value !== '') env[name] = value;
  Object.assign(env, {
    ASSISTANT_GATEWAY_HOST: '127.0.0.1',
    ASSISTANT_GATEWAY_PORT: String(port),
    ASSISTANT_GATEWAY_KEY: key,
    ASSISTANT_GATEWAY_DATABASE_URL: options.databaseUrl,
  });
  if (options.testClockFile)
    Object.assign(env, { NODE_ENV: 'test', ASSISTANT_GATEWAY_TEST_CLOCK_FILE: options.testClockFile });
  const output = options.output ?? 'inherit';
  const logFd = typeof output === 'object' ? openSync(output.logFile, 'a') : undefined;
  const sink = logFd ?? (output as 'inherit' | 'ignore');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [GATEWAY_MAIN], { env, stdio: ['ignore', sink, sink], detached: true });
  } finally {
    if (logFd !== undefined) closeSync(logFd);
  }
  const exit = new Promise<ProcessEnd>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exited = false;
  void exit.then(() => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopProcess(child, { signal: 'SIGTERM', timeoutMs: 10_000 });
  try {
    await waitFor(
      async () => {
        if (exited) throw new StartupFailed('the model gateway exited during start-up (see its message above)');
        return (await fetch(`${url}/healthz`)).ok;
      },
      { timeoutMs: 60_000, what: `the model gateway on ${url}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, key, pid: () => child.pid!, whenExited: () => exit, stop };
}
