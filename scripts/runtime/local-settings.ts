// The local stack's settings: .runtime/local/local.env (secrets generated on first run, mode 600), the shell's
// overrides, the files kept beside it, and the checks that name a bad setting.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './n8n';

export const LOCAL_DIR = process.env.LOCAL_STATE_DIR ?? path.join(REPO_ROOT, '.runtime', 'local');
export const ENV_FILE = path.join(LOCAL_DIR, 'local.env');
export const API_KEY_FILE = path.join(LOCAL_DIR, 'n8n-api-key');
export const PRIVATE_WEBHOOK_IDS_FILE = path.join(LOCAL_DIR, 'private-webhook-ids.json');
/** The supervisor's record: PIDs and every unexpected exit and restart. */
export const SUPERVISOR_STATE_FILE = path.join(LOCAL_DIR, 'supervisor.json');

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
    // The judge's console (http://127.0.0.1:<JUDGE_PORT>/console): API keys, usage, the playground. Its keys live in
    // this stack's Postgres unless JUDGE_KEYS_DATABASE_URL or JUDGE_KEYS_FILE names another store.
    JUDGE_CONSOLE_PASSWORD: secret(18),
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
    // The model gateway (docs/MODELS.md): every model call goes through it, on this loopback port, with this key.
    ASSISTANT_GATEWAY_PORT: '5681',
    ASSISTANT_GATEWAY_KEY: secret(),
    // Optional Telegram bot: token from @BotFather, your chat id (the only chat it answers), and the public HTTPS
    // base URL of this n8n (Telegram must reach its webhook). Empty token: the Telegram entry stays inactive.
    ASSISTANT_TELEGRAM_BOT_TOKEN: '',
    ASSISTANT_TELEGRAM_API_URL: 'https://api.telegram.org',
    ASSISTANT_TELEGRAM_OWNER_CHAT_ID: '',
    // Optional Slack app (docs/ASSISTANT.md, Slack): its bot token (xoxb-), app-level token (xapp-, Socket Mode: no
    // public URL needed), signing secret, and your Slack member ID (the only one it answers). Empty tokens: the Slack
    // entry stays inactive.
    ASSISTANT_SLACK_BOT_TOKEN: '',
    ASSISTANT_SLACK_APP_TOKEN: '',
    ASSISTANT_SLACK_SIGNING_SECRET: '',
    ASSISTANT_SLACK_OWNER_USER_ID: '',
    ASSISTANT_SLACK_API_URL: 'https://slack.com/api',
    // The API user_id you use over /webhook/agent (e.g. owner): linked with your Telegram chat as one user, so both
    // share memories, graph and tasks. Empty: not linked (or link later: tsx scripts/link-owner.ts --user-id …).
    ASSISTANT_OWNER_USER_ID: '',
    // Who may talk to the bot (docs/ASSISTANT.md, Several people): owner (only you), pairing (people you give a
    // one-time code), allowlist (the chat ids in ASSISTANT_DM_ALLOW_TELEGRAM). Empty: the stored policy stays.
    ASSISTANT_DM_POLICY_TELEGRAM: '',
    ASSISTANT_DM_ALLOW_TELEGRAM: '',
    N8N_PUBLIC_URL: '',
    // n8n's queue mode, the scale-out path: Redis (apt-get install redis-server) and one n8n worker. true or false.
    N8N_QUEUE_MODE: 'false',
    // Without a domain, the self-signed certificate (PEM) of N8N_PUBLIC_URL, uploaded to Telegram with setWebhook at
    // every start (setup.sh writes both).
    ASSISTANT_WEBHOOK_CERTIFICATE: '',
    // Asked by setup.sh (scripts/installer): the provider, the domain for HTTPS, the time zone, locale and personality
    // (stored as the assistant's settings; empty leaves them as they are), and an n8n API key to use.
    ASSISTANT_PROVIDER: '',
    ASSISTANT_DOMAIN: '',
    ASSISTANT_TIME_ZONE: '',
    ASSISTANT_NAME: '',
    ASSISTANT_LOCALE: '',
    ASSISTANT_LANGUAGE: '',
    ASSISTANT_STYLE: '',
    // Timeouts that fit the model (docs/ASSISTANT.md): one model call (10-600 s, default 300) and how long the webhook
    // waits for a reply (1-900 s, default 600), and the longest one run of the agent may take, at which its tools stop
    // (10-1800 s, default 1800). Empty: the stored setting stays.
    ASSISTANT_MODEL_TIMEOUT_SECONDS: '',
    ASSISTANT_REPLY_DEADLINE_SECONDS: '',
    ASSISTANT_RUN_LIMIT_SECONDS: '',
    // Capture (docs/ASSISTANT.md, "Memory and the knowledge graph"): a conversation idle this many minutes has its
    // people, relations and facts captured into the graph and memory (0-1440, default 5; 0: off). Empty: the stored
    // setting stays.
    ASSISTANT_CAPTURE_IDLE_MINUTES: '',
    // The live memories each user keeps: the nightly consolidation folds the oldest, least important ones into
    // summaries beyond it (0-1000000, default 2000; 0: the nightly consolidation off). Empty: the stored setting stays.
    ASSISTANT_MEMORY_BUDGET: '',
    // Spending caps on the instance's model calls (docs/MODELS.md), written at every start: US dollars a day and a
    // month (setup.sh asks; empty: 1 and 20; off: no money limit; 0: nothing that costs money), and optionally tokens
    // (for local models, which cost 0; empty or off: no token limit).
    ASSISTANT_BUDGET_DAY_USD: '1',
    ASSISTANT_BUDGET_MONTH_USD: '20',
    ASSISTANT_BUDGET_DAY_TOKENS: '',
    ASSISTANT_BUDGET_MONTH_TOKENS: '',
    // A job's own caps, made exactly these at every start (empty: none), e.g. "heartbeat=0.20/day, expert=5/month,
    // judge=50000tok/day": job=limit/period, the limit in US dollars or tokens with a tok suffix (docs/MODELS.md).
    ASSISTANT_BUDGET_JOBS: '',
    // Users' own caps, the same way, a user named by an identity (empty: none), e.g. "api:alice=0.50/day,
    // telegram:4242001=2/day".
    ASSISTANT_BUDGET_USERS: '',
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

export function port(settings: Record<string, string>, name: string): number {
  const value = Number(settings[name]);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) {
    throw new Error(`${name}: "${settings[name]}" is not a TCP port (in ${ENV_FILE})`);
  }
  return value;
}

/** Named after the setting, so a bad value in local.env is easy to find. */
export function settingError(name: string, error: unknown): Error {
  return new Error(`${name} (in ${ENV_FILE} or the shell): ${(error as Error).message.replace(/^\w+: /, '')}`);
}

export function queueMode(settings: Record<string, string>): boolean {
  const value = (settings.N8N_QUEUE_MODE ?? '').trim().toLowerCase();
  if (value !== '' && value !== 'true' && value !== 'false') {
    throw settingError('N8N_QUEUE_MODE', new Error(`must be true or false, not "${settings.N8N_QUEUE_MODE}"`));
  }
  return value === 'true';
}

/** The public base URL Telegram posts updates to (n8n's WEBHOOK_URL), when set. */
export function publicUrl(settings: Record<string, string>): string | undefined {
  const value = settings.N8N_PUBLIC_URL?.trim();
  if (!value) return undefined;
  if (!/^https?:\/\/[^\s/]+/.test(value))
    throw settingError('N8N_PUBLIC_URL', new Error('must be a URL such as https://n8n.example.com/'));
  return value.endsWith('/') ? value : `${value}/`;
}
