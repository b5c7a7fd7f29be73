// The local stack behind scripts/run.sh: Postgres 17 + n8n + the judge server, state kept in .runtime/local/.
// First run: random secrets into .runtime/local/local.env (mode 600). Later runs reuse the data and the secrets.
// Ctrl-C (or SIGTERM) stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './n8n';
import { startPostgres, type PostgresServer } from './postgres';
import { StartupFailed, stopProcess, waitFor } from './process';
import { startStack, type Stack } from './stack';

export const LOCAL_DIR = process.env.LOCAL_STATE_DIR ?? path.join(REPO_ROOT, '.runtime', 'local');
const ENV_FILE = path.join(LOCAL_DIR, 'local.env');
const API_KEY_FILE = path.join(LOCAL_DIR, 'n8n-api-key');
const JUDGE_CLI = path.join(REPO_ROOT, 'judge', 'dist', 'cli', 'main.js');

const secret = (bytes = 24) => randomBytes(bytes).toString('base64url');

/** The settings a user may edit; secrets are generated once. */
function defaultSettings(): Record<string, string> {
  const judgeKey = secret();
  return {
    N8N_PORT: '5678',
    POSTGRES_PORT: '5433',
    JUDGE_PORT: '8787',
    OWNER_EMAIL: 'owner@example.com',
    OWNER_PASSWORD: secret(12),
    N8N_ENCRYPTION_KEY: secret(32),
    POSTGRES_PASSWORD: secret(),
    // The judge's model: any OpenAI-compatible server, e.g. a local Ollama (http://127.0.0.1:11434/v1).
    JUDGE_BACKEND: 'openai',
    JUDGE_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    JUDGE_OPENAI_MODEL: 'qwen2.5:7b-instruct',
    JUDGE_OPENAI_API_KEY: '',
    JUDGE_API_KEYS: judgeKey,
    // Credentials n8n gets (scripts/runtime/credentials/*.json read these).
    SYSTEMONE_JUDGE_KEY: judgeKey,
    SYSTEMONE_WRAPPER_KEY: secret(),
  };
}

function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(trimmed);
    if (!match) throw new Error(`${ENV_FILE}:${index + 1}: expected NAME=value, got "${trimmed}"`);
    values[match[1]] = match[2];
  });
  return values;
}

/** Reads local.env, adding any setting it lacks (and writing it back, mode 600). */
export function loadLocalSettings(): Record<string, string> {
  // 711: Postgres (run as the postgres user when we are root) must enter it; the secrets inside are mode 600.
  mkdirSync(LOCAL_DIR, { recursive: true, mode: 0o711 });
  chmodSync(LOCAL_DIR, 0o711);
  const existing = existsSync(ENV_FILE) ? parseEnvFile(readFileSync(ENV_FILE, 'utf8')) : {};
  const defaults = defaultSettings();
  const missing = Object.keys(defaults).filter((key) => !(key in existing));
  const settings = { ...defaults, ...existing };
  if (missing.length > 0) {
    const lines = [
      '# Local stack settings (scripts/run.sh). Secrets: keep this file private (mode 600).',
      ...Object.entries(settings).map(([key, value]) => `${key}=${value}`),
    ];
    writeFileSync(ENV_FILE, lines.join('\n') + '\n', { mode: 0o600 });
  }
  chmodSync(ENV_FILE, 0o600);
  // The environment of this shell wins over the file (e.g. JUDGE_OPENAI_MODEL=… ./scripts/run.sh).
  for (const key of Object.keys(settings)) {
    if (process.env[key] !== undefined && process.env[key] !== '') settings[key] = process.env[key]!;
  }
  return settings;
}

function port(settings: Record<string, string>, name: string): number {
  const value = Number(settings[name]);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) {
    throw new Error(`${name}: "${settings[name]}" is not a TCP port (in ${ENV_FILE})`);
  }
  return value;
}

async function startJudge(settings: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(JUDGE_CLI)) throw new Error(`the judge is not built (missing ${JUDGE_CLI}); run: bash scripts/install.sh`);
  const judgeEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [key, value] of Object.entries(settings)) if (key.startsWith('JUDGE_') && value !== '') judgeEnv[key] = value;
  judgeEnv.JUDGE_HOST = '127.0.0.1';
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

async function main(): Promise<void> {
  const settings = loadLocalSettings();
  const owner = { email: settings.OWNER_EMAIL, password: settings.OWNER_PASSWORD };
  let postgres: PostgresServer | undefined;
  let judge: ChildProcess | undefined;
  let stack: Stack | undefined;
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    await stack?.stop().catch((e) => console.error(e));
    if (judge) await stopProcess(judge, { signal: 'SIGTERM', timeoutMs: 15_000 });
    await postgres?.stop().catch((e) => console.error(e));
    console.log('stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    postgres = await startPostgres({
      dataDir: path.join(LOCAL_DIR, 'postgres'),
      port: port(settings, 'POSTGRES_PORT'),
      password: settings.POSTGRES_PASSWORD,
      database: 'n8n',
    });
    console.log(`Postgres 17 on 127.0.0.1:${postgres.port}`);
    judge = await startJudge(settings);
    console.log(`judge server on http://127.0.0.1:${settings.JUDGE_PORT} (model: ${settings.JUDGE_OPENAI_BASE_URL})`);
    stack = await startStack({
      userFolder: path.join(LOCAL_DIR, 'n8n'),
      postgres,
      port: port(settings, 'N8N_PORT'),
      encryptionKey: settings.N8N_ENCRYPTION_KEY,
      owner,
      importStateFile: path.join(LOCAL_DIR, 'imported-workflows.json'),
      apiKey: existsSync(API_KEY_FILE) ? readFileSync(API_KEY_FILE, 'utf8').trim() : undefined,
      credentialEnv: { ...settings, SYSTEMONE_JUDGE_URL: `http://127.0.0.1:${settings.JUDGE_PORT}` },
      log: (line) => console.log(line),
    });
    writeFileSync(API_KEY_FILE, stack.apiKey, { mode: 0o600 });
  } catch (error) {
    console.error(`\nrun.sh: ${(error as Error).message}`);
    await stopAll(1);
    return;
  }

  console.log(
    [
      '',
      `  n8n editor:  ${stack.n8nUrl}/`,
      `  owner login: ${owner.email} / ${owner.password}`,
      `  System One:  POST ${stack.webhookUrl}/v1/systemone  (Authorization: Bearer <SYSTEMONE_WRAPPER_KEY>)`,
      `  judge:       http://127.0.0.1:${settings.JUDGE_PORT}/v1  (Authorization: Bearer <JUDGE_API_KEYS>)`,
      `  settings and keys: ${ENV_FILE}`,
      '',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
  judge.on('exit', () => {
    if (!stopping) {
      console.error('the judge server stopped unexpectedly');
      void stopAll(1);
    }
  });
}

void main();
