// The judge server of the local stack (judge/dist/cli/main.js serve) on 127.0.0.1, with only its JUDGE_* settings.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './n8n';
import { StartupFailed, waitFor } from './process';

const JUDGE_CLI = path.join(REPO_ROOT, 'judge', 'dist', 'cli', 'main.js');

/** The judge's keys and usage in the stack's Postgres (schema systemone_judge), unless a store is named. */
export function withKeyStore(settings: Record<string, string>, postgres: { url: string }): Record<string, string> {
  if (settings.JUDGE_KEYS_DATABASE_URL || settings.JUDGE_KEYS_FILE) return settings;
  return { ...settings, JUDGE_KEYS_DATABASE_URL: postgres.url };
}

/**
 * The console's web chat reaches the assistant through its webhook on this machine's n8n, with the assistant's API
 * key from the settings (the judge holds it; the browser never gets it), and voice notes when transcription is on.
 * Settings of its own win.
 */
export function webChatEntry(settings: Record<string, string>, judgeEnv: NodeJS.ProcessEnv): Record<string, string> {
  const entry: Record<string, string> = {};
  if (!judgeEnv.JUDGE_CONSOLE_ASSISTANT_URL && settings.N8N_PORT) {
    entry.JUDGE_CONSOLE_ASSISTANT_URL = `http://127.0.0.1:${settings.N8N_PORT}/webhook`;
  }
  if (!judgeEnv.JUDGE_CONSOLE_ASSISTANT_KEY && settings.ASSISTANT_API_KEY) {
    entry.JUDGE_CONSOLE_ASSISTANT_KEY = settings.ASSISTANT_API_KEY;
  }
  // The microphone only when the assistant can transcribe (its transcription provider is set).
  if (!judgeEnv.JUDGE_CONSOLE_ASSISTANT_VOICE) {
    entry.JUDGE_CONSOLE_ASSISTANT_VOICE = settings.ASSISTANT_TRANSCRIPTION_BASE_URL?.trim() ? 'on' : 'off';
  }
  return entry;
}

/** Starts the judge server and waits until it answers on JUDGE_PORT. */
export async function startJudge(settings: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(JUDGE_CLI))
    throw new Error(`the judge is not built (missing ${JUDGE_CLI}); run: bash scripts/install.sh`);
  const judgeEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [key, value] of Object.entries(settings))
    if (key.startsWith('JUDGE_') && value !== '') judgeEnv[key] = value;
  judgeEnv.JUDGE_HOST = '127.0.0.1';
  Object.assign(judgeEnv, webChatEntry(settings, judgeEnv));
  const child = spawn(process.execPath, [JUDGE_CLI, 'serve'], {
    env: judgeEnv,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true, // Ctrl-C goes to us; we stop it in order
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${settings.JUDGE_PORT}/v1/models`;
  await waitFor(
    async () => {
      if (exited) throw new StartupFailed('the judge server exited during start-up (see its message above)');
      // It listens when it answers; the model itself may not be reachable yet (the judge does not need it to start).
      const key = settings.JUDGE_API_KEYS.split(',')[0].trim();
      const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      return response.status < 500;
    },
    { timeoutMs: 30_000, what: `the judge server on ${url}` },
  );
  return child;
}
