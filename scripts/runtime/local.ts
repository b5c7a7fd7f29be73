// The local stack behind scripts/run.sh: Postgres 17 + n8n + the judge server + the assistant, state kept in
// .runtime/local/. First run: random secrets into .runtime/local/local.env (mode 600). Later runs reuse the data and
// the secrets. Ctrl-C (or SIGTERM) stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PoolConfig } from 'pg';
import {
  AssistantInputError,
  prepareAssistantDatabase,
  registerTelegramWebhook,
  TELEGRAM_ENTRY_WORKFLOW_ID,
  telegramWebhookRegistration,
  type TelegramEntryWorkflow,
} from 'assistant-core';
import { describe as describeMigration } from '../migrate';
import { REPO_ROOT } from './n8n';
import { reachableDataDir, startPostgres, type PostgresServer } from './postgres';
import { StartupFailed, stopProcess, waitFor } from './process';
import { readWorkflowFiles, startStack, WORKFLOWS_DIR, type Stack } from './stack';
import { Supervisor, type ProcessEnd, type SupervisedService } from './supervisor';

export const LOCAL_DIR = process.env.LOCAL_STATE_DIR ?? path.join(REPO_ROOT, '.runtime', 'local');
const ENV_FILE = path.join(LOCAL_DIR, 'local.env');
const API_KEY_FILE = path.join(LOCAL_DIR, 'n8n-api-key');
const PRIVATE_WEBHOOK_IDS_FILE = path.join(LOCAL_DIR, 'private-webhook-ids.json');
/** The supervisor's record: PIDs and every unexpected exit and restart. */
const SUPERVISOR_STATE_FILE = path.join(LOCAL_DIR, 'supervisor.json');
/** The assistant's tables live in their own database of the local Postgres (schema `assistant`). */
const ASSISTANT_DATABASE = 'assistant';
const TELEGRAM_CREDENTIAL_ID = 'asstTelegramBot1';
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
    // The assistant (docs/ASSISTANT.md): the X-API-Key of POST /webhook/agent, and its chat model, by default a
    // local Ollama (any OpenAI-compatible server: base URL + key + model; the model must support tool calling).
    ASSISTANT_API_KEY: secret(),
    // Proactive messages POSTed to a webhook user's callback_url are signed with it (X-Signature: sha256=<HMAC>).
    ASSISTANT_CALLBACK_SECRET: secret(32),
    // The bearer token outside agents use for the MCP server of exposed tools (POST /mcp/assistant-tools).
    ASSISTANT_MCP_TOKEN: secret(32),
    ASSISTANT_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
    ASSISTANT_LLM_API_KEY: 'ollama',
    ASSISTANT_LLM_MODEL: 'qwen2.5:7b-instruct',
    // Optional Telegram bot: token from @BotFather, your chat id (the only chat it answers), and the public HTTPS
    // base URL of this n8n (Telegram must reach its webhook). Empty token: the Telegram entry stays inactive.
    ASSISTANT_TELEGRAM_BOT_TOKEN: '',
    ASSISTANT_TELEGRAM_API_URL: 'https://api.telegram.org',
    ASSISTANT_TELEGRAM_OWNER_CHAT_ID: '',
    // The API user_id you use over /webhook/agent (e.g. owner): linked with your Telegram chat as one user, so both
    // share memories, graph and tasks. Empty: not linked (or link later: tsx scripts/link-owner.ts --user-id …).
    ASSISTANT_OWNER_USER_ID: '',
    N8N_PUBLIC_URL: '',
    // n8n's queue mode, the scale-out path: Redis (apt-get install redis-server) and one n8n worker. true or false.
    N8N_QUEUE_MODE: 'false',
    // Without a domain, the self-signed certificate (PEM) of N8N_PUBLIC_URL, uploaded to Telegram with setWebhook at
    // every start (setup.sh writes both).
    ASSISTANT_WEBHOOK_CERTIFICATE: '',
    // Asked by setup.sh (scripts/installer): the provider, the domain for HTTPS, the time zone and personality
    // (stored as the assistant's settings; empty leaves them as they are), and an n8n API key to use.
    ASSISTANT_PROVIDER: '',
    ASSISTANT_DOMAIN: '',
    ASSISTANT_TIME_ZONE: '',
    ASSISTANT_NAME: '',
    ASSISTANT_LANGUAGE: '',
    ASSISTANT_STYLE: '',
    N8N_API_KEY: '',
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
  if (!existsSync(JUDGE_CLI))
    throw new Error(`the judge is not built (missing ${JUDGE_CLI}); run: bash scripts/install.sh`);
  const judgeEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [key, value] of Object.entries(settings))
    if (key.startsWith('JUDGE_') && value !== '') judgeEnv[key] = value;
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

/** Named after the setting, so a bad value in local.env is easy to find. */
function settingError(name: string, error: unknown): Error {
  return new Error(`${name} (in ${ENV_FILE} or the shell): ${(error as Error).message.replace(/^\w+: /, '')}`);
}

function queueMode(settings: Record<string, string>): boolean {
  const value = (settings.N8N_QUEUE_MODE ?? '').trim().toLowerCase();
  if (value !== '' && value !== 'true' && value !== 'false') {
    throw settingError('N8N_QUEUE_MODE', new Error(`must be true or false, not "${settings.N8N_QUEUE_MODE}"`));
  }
  return value === 'true';
}

/** The public base URL Telegram posts updates to (n8n's WEBHOOK_URL), when set. */
function publicUrl(settings: Record<string, string>): string | undefined {
  const value = settings.N8N_PUBLIC_URL?.trim();
  if (!value) return undefined;
  if (!/^https?:\/\/[^\s/]+/.test(value))
    throw settingError('N8N_PUBLIC_URL', new Error('must be a URL such as https://n8n.example.com/'));
  return value.endsWith('/') ? value : `${value}/`;
}

/**
 * Registers the Telegram entry's webhook again with the self-signed certificate uploaded (n8n's trigger cannot upload
 * one). Answers the status line's addition; a failure is reported there, not fatal.
 */
async function uploadWebhookCertificate(
  stack: Stack,
  settings: Record<string, string>,
  webhookBase: string,
  certificateFile: string,
): Promise<string> {
  try {
    const workflow = await stack.api<TelegramEntryWorkflow>(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}`);
    await registerTelegramWebhook({
      apiBaseUrl: settings.ASSISTANT_TELEGRAM_API_URL || 'https://api.telegram.org',
      botToken: settings.ASSISTANT_TELEGRAM_BOT_TOKEN.trim(),
      registration: telegramWebhookRegistration(workflow, webhookBase),
      certificatePem: readFileSync(certificateFile, 'utf8'),
    });
    return `; self-signed certificate uploaded (${certificateFile})`;
  } catch (error) {
    return `; certificate NOT uploaded: ${(error as Error).message.slice(0, 300)} (ASSISTANT_WEBHOOK_CERTIFICATE)`;
  }
}

/**
 * The assistant's database on the local Postgres: created if missing, migrated, and the settings given in local.env
 * (chat model, owner's Telegram chat id) stored; an empty value leaves the stored setting as it is.
 */
async function prepareAssistant(
  postgres: PostgresServer,
  settings: Record<string, string>,
): Promise<{ connection: PoolConfig; ownerChatId: string | null; chatModel: string }> {
  const connection = {
    host: '127.0.0.1',
    port: postgres.port,
    user: postgres.user,
    password: postgres.password,
    database: ASSISTANT_DATABASE,
  };
  const prepared = await prepareAssistantDatabase(connection, settings).catch((error: unknown) => {
    throw error instanceof AssistantInputError ? settingError(error.field, new Error(error.reason)) : error;
  });
  console.log(describeMigration(prepared.migration));
  if (prepared.linkedIdentities.length > 0)
    console.log(`owner: ${prepared.linkedIdentities.join(' and ')} are one user`);
  return { connection, ownerChatId: prepared.ownerChatId, chatModel: prepared.chatModel };
}

/** Whether the chat model's server answers at all (a hint at start, never fatal). */
async function llmReachable(settings: Record<string, string>): Promise<boolean> {
  try {
    const response = await fetch(`${settings.ASSISTANT_LLM_BASE_URL.replace(/\/+$/, '')}/models`, {
      headers: { authorization: `Bearer ${settings.ASSISTANT_LLM_API_KEY}` },
      signal: AbortSignal.timeout(3000),
    });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const settings = loadLocalSettings();
  const owner = { email: settings.OWNER_EMAIL, password: settings.OWNER_PASSWORD };
  let postgres: PostgresServer | undefined;
  let judge: ChildProcess | undefined;
  let stack: Stack | undefined;
  let assistant: Awaited<ReturnType<typeof prepareAssistant>> | undefined;
  let telegramStatus = 'off (no ASSISTANT_TELEGRAM_BOT_TOKEN)';
  let stopping = false;
  const supervisor = new Supervisor({
    log: (line) => console.log(`${new Date().toISOString()} ${line}`),
    stateFile: SUPERVISOR_STATE_FILE,
    onGiveUp: () => void stopAll(1),
  });
  const postgresOptions = () => ({
    dataDir: reachableDataDir(path.join(LOCAL_DIR, 'postgres')),
    port: port(settings, 'POSTGRES_PORT'),
    password: settings.POSTGRES_PASSWORD,
    database: 'n8n',
  });
  const exitOf = (child: ChildProcess): Promise<ProcessEnd> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // Postgres, the judge and n8n are watched from the moment all are up; each comes back on its own.
  const supervise = () => {
    const services: SupervisedService[] = [
      {
        name: 'postgres',
        pid: () => postgres!.pid,
        whenExited: () => postgres!.whenExited(),
        restart: async () => {
          postgres = await startPostgres(postgresOptions());
        },
      },
      {
        name: 'judge',
        pid: () => judge!.pid!,
        whenExited: () => exitOf(judge!),
        restart: async () => {
          judge = await startJudge(settings);
        },
      },
      {
        name: 'n8n',
        pid: () => stack!.n8n.pid(),
        whenExited: () => stack!.n8n.whenExited(),
        restart: () => stack!.n8n.restart(),
      },
    ];
    for (const service of services) supervisor.watch(service);
  };

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    supervisor.stop();
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
    postgres = await startPostgres(postgresOptions());
    console.log(`Postgres 17 on 127.0.0.1:${postgres.port}`);
    assistant = await prepareAssistant(postgres, settings);
    judge = await startJudge(settings);
    console.log(`judge server on http://127.0.0.1:${settings.JUDGE_PORT} (model: ${settings.JUDGE_OPENAI_BASE_URL})`);
    const webhookBase = publicUrl(settings);
    const telegramBot = settings.ASSISTANT_TELEGRAM_BOT_TOKEN.trim() !== '';
    // The Telegram entry registers its webhook with Telegram when activated: only with a bot, and on its own below,
    // so an unreachable Telegram cannot stop the rest from starting.
    const activate = readWorkflowFiles([WORKFLOWS_DIR])
      .filter((workflow) => workflow.triggered && workflow.id !== TELEGRAM_ENTRY_WORKFLOW_ID)
      .map((workflow) => workflow.id);
    stack = await startStack({
      userFolder: path.join(LOCAL_DIR, 'n8n'),
      postgres,
      port: port(settings, 'N8N_PORT'),
      encryptionKey: settings.N8N_ENCRYPTION_KEY,
      owner,
      importStateFile: path.join(LOCAL_DIR, 'imported-workflows.json'),
      privateWebhookIdsFile: PRIVATE_WEBHOOK_IDS_FILE,
      activate,
      queue: queueMode(settings),
      // The outbound guard keeps the judge out of reach of every fetch the assistant makes.
      env: {
        ASSISTANT_JUDGE_URL: `http://127.0.0.1:${settings.JUDGE_PORT}`,
        ...(webhookBase ? { WEBHOOK_URL: webhookBase } : {}),
      },
      apiKey:
        settings.N8N_API_KEY?.trim() ||
        (existsSync(API_KEY_FILE) ? readFileSync(API_KEY_FILE, 'utf8').trim() : undefined),
      credentialEnv: {
        ...settings,
        SYSTEMONE_JUDGE_URL: `http://127.0.0.1:${settings.JUDGE_PORT}`,
        ASSISTANT_PG_HOST: '127.0.0.1',
        ASSISTANT_PG_PORT: String(postgres.port),
        ASSISTANT_PG_DATABASE: ASSISTANT_DATABASE,
        ASSISTANT_PG_USER: postgres.user,
        ASSISTANT_PG_PASSWORD: settings.POSTGRES_PASSWORD,
      },
      log: (line) => console.log(line),
    });
    writeFileSync(API_KEY_FILE, stack.apiKey, { mode: 0o600 });
    // The Telegram entry is switched on when it was (re)imported or the bot token changed; otherwise it stays as
    // the operator left it in the editor.
    const telegramChanged =
      stack.imports.importedWorkflows.includes(TELEGRAM_ENTRY_WORKFLOW_ID) ||
      stack.imports.writtenCredentials.some((credential) => credential.id === TELEGRAM_CREDENTIAL_ID);
    if (telegramBot && !telegramChanged) {
      const entry = await stack.api<{ active: boolean }>(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}`);
      telegramStatus = entry.active ? 'active (as left in the editor)' : 'off (switched off in the editor)';
    } else if (telegramBot) {
      try {
        await stack.api(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
        telegramStatus = assistant.ownerChatId
          ? `active, answers only chat ${assistant.ownerChatId}`
          : 'active, but answers no one until ASSISTANT_TELEGRAM_OWNER_CHAT_ID is set';
      } catch (error) {
        telegramStatus = `NOT active: ${(error as Error).message.slice(0, 300)} (Telegram needs N8N_PUBLIC_URL, an HTTPS URL reaching this n8n)`;
      }
    }
    const certificateFile = settings.ASSISTANT_WEBHOOK_CERTIFICATE?.trim();
    if (telegramBot && webhookBase && certificateFile && telegramStatus.startsWith('active')) {
      telegramStatus += await uploadWebhookCertificate(stack, settings, webhookBase, certificateFile);
    }
  } catch (error) {
    console.error(`\nrun.sh: ${(error as Error).message}`);
    await stopAll(1);
    return;
  }

  for (const copy of stack.imports.keptCopies) {
    console.log(`note: your edited workflow was kept as "${copy.name}" (${copy.id}); the new version replaced it`);
  }
  console.log(
    [
      '',
      `  n8n editor:  ${stack.n8nUrl}/`,
      // The password stays in the mode-600 settings file: this output may end up in the system log.
      `  owner login: ${owner.email} (password: OWNER_PASSWORD in ${ENV_FILE})`,
      `  System One:  POST ${stack.webhookUrl}/v1/systemone  (Authorization: Bearer <SYSTEMONE_WRAPPER_KEY>)`,
      `  judge:       http://127.0.0.1:${settings.JUDGE_PORT}/v1  (Authorization: Bearer <JUDGE_API_KEYS>)`,
      `  assistant:   POST ${stack.webhookUrl}/agent  (X-API-Key: <ASSISTANT_API_KEY>)`,
      `               model ${assistant.chatModel} at ${settings.ASSISTANT_LLM_BASE_URL}${(await llmReachable(settings)) ? '' : '  (NOT reachable yet: start it, or set ASSISTANT_LLM_BASE_URL / ASSISTANT_LLM_API_KEY / ASSISTANT_LLM_MODEL)'}`,
      `               Telegram: ${telegramStatus}`,
      `  settings and keys: ${ENV_FILE}`,
      '',
      'Talk to the assistant:',
      `  curl -sS -X POST ${stack.webhookUrl}/agent -H 'content-type: application/json' \\`,
      // The key is read from the env file (or the shell that overrides it), never printed.
      process.env.ASSISTANT_API_KEY
        ? `    -H "X-API-Key: $ASSISTANT_API_KEY" \\`
        : `    -H "X-API-Key: $(sed -n 's/^ASSISTANT_API_KEY=//p' '${ENV_FILE}')" \\`,
      `    -d '{"message": "Hello! What can you do?", "user_id": "me"}'`,
      '',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
  supervise();
}

void main();
