// The Docker path's settings file (docker compose --env-file …): the installer's answers from local.env, and the
// secrets docker-compose.yml requires (the model gateway's key among them), generated once and kept on every re-run.
// Mode 600, one NAME=value per line; the owner's bcrypt hash is single-quoted (it contains $). Prints which settings
// changed.
//   tsx scripts/installer/compose-env.ts --env /var/lib/judge-assistant/local.env \
//       --out /var/lib/judge-assistant/compose.env [--queue] [--caddy-dir DIR]
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { parseEnv, readEnvFile } from './env-file';
import { flagValue } from './cli-flags';

const secret = (bytes = 24) => randomBytes(bytes).toString('base64url');

/** Generated once, then kept: what compose's ${NAME:?} asks for. */
const GENERATED: Record<string, () => string> = {
  POSTGRES_PASSWORD: () => secret(),
  N8N_ENCRYPTION_KEY: () => secret(32),
  OWNER_PASSWORD: () => secret(12),
  JUDGE_API_KEY: () => secret(),
  JUDGE_CONSOLE_PASSWORD: () => secret(18),
  SYSTEMONE_WRAPPER_KEY: () => secret(),
  ASSISTANT_BROWSER_KEY: () => secret(),
  SEARXNG_SECRET: () => secret(32),
  ASSISTANT_API_KEY: () => secret(),
  ASSISTANT_CALLBACK_SECRET: () => secret(32),
  ASSISTANT_MCP_TOKEN: () => secret(32),
  // The model gateway's key (n8n's credentials and the judge present it; the providers' keys stay in the gateway).
  ASSISTANT_GATEWAY_KEY: () => secret(),
};

/** The model providers' base URLs the gateway reads (assistant/src/gateway/config.ts). */
const PROVIDER_BASE_URLS = [
  'ASSISTANT_LLM_BASE_URL',
  'JUDGE_OPENAI_BASE_URL',
  'ASSISTANT_EMBEDDINGS_BASE_URL',
  'ASSISTANT_TRANSCRIPTION_BASE_URL',
];

/** The gateway as n8n reaches it on compose's network (docker-compose.yml's gateway service). */
const GATEWAY_IN_COMPOSE = 'http://gateway:5681';

/** The installer's answers (and the HTTPS step's) passed on as they are. */
const FROM_ANSWERS = [
  'ASSISTANT_PROVIDER',
  'ASSISTANT_LLM_BASE_URL',
  'ASSISTANT_LLM_API_KEY',
  'ASSISTANT_LLM_MODEL',
  'ASSISTANT_TELEGRAM_BOT_TOKEN',
  'ASSISTANT_TELEGRAM_API_URL',
  'ASSISTANT_TELEGRAM_OWNER_CHAT_ID',
  'ASSISTANT_OWNER_USER_ID',
  'ASSISTANT_DM_POLICY_TELEGRAM',
  'ASSISTANT_DM_ALLOW_TELEGRAM',
  'ASSISTANT_SLACK_BOT_TOKEN',
  'ASSISTANT_SLACK_APP_TOKEN',
  'ASSISTANT_SLACK_OWNER_USER_ID',
  'ASSISTANT_EMAIL_ADDRESS',
  'ASSISTANT_EMAIL_IMAP_HOST',
  'ASSISTANT_EMAIL_IMAP_PORT',
  'ASSISTANT_EMAIL_IMAP_USER',
  'ASSISTANT_EMAIL_IMAP_PASSWORD',
  'ASSISTANT_EMAIL_SMTP_HOST',
  'ASSISTANT_EMAIL_SMTP_PORT',
  'ASSISTANT_EMAIL_SMTP_USER',
  'ASSISTANT_EMAIL_SMTP_PASSWORD',
  'ASSISTANT_DM_POLICY_EMAIL',
  'ASSISTANT_DM_ALLOW_EMAIL',
  'ASSISTANT_DOMAIN',
  'ASSISTANT_TIME_ZONE',
  'ASSISTANT_NAME',
  'ASSISTANT_LOCALE',
  'ASSISTANT_LANGUAGE',
  'ASSISTANT_STYLE',
  'ASSISTANT_MODEL_TIMEOUT_SECONDS',
  'ASSISTANT_REPLY_DEADLINE_SECONDS',
  'ASSISTANT_RUN_LIMIT_SECONDS',
  'ASSISTANT_CAPTURE_IDLE_MINUTES',
  'ASSISTANT_MEMORY_BUDGET',
  'ASSISTANT_BUDGET_DAY_USD',
  'ASSISTANT_BUDGET_MONTH_USD',
  'ASSISTANT_BUDGET_DAY_TOKENS',
  'ASSISTANT_BUDGET_MONTH_TOKENS',
  'ASSISTANT_BUDGET_JOBS',
  'ASSISTANT_BUDGET_USERS',
  'N8N_API_KEY',
  'N8N_PUBLIC_URL',
  'OWNER_EMAIL',
  'JUDGE_BACKEND',
  'JUDGE_PROVIDER',
  'JUDGE_OPENAI_BASE_URL',
  'JUDGE_OPENAI_MODEL',
  'JUDGE_OPENAI_API_KEY',
  'ASSISTANT_EMBEDDINGS_MODEL',
  'ASSISTANT_TRANSCRIPTION_MODEL',
];

/** Embeddings and voice: an empty answer (the feature off) clears the setting rather than keeping the current one. */
const CLEARED_WHEN_OFF = [
  'ASSISTANT_EMBEDDINGS_BASE_URL',
  'ASSISTANT_EMBEDDINGS_API_KEY',
  'ASSISTANT_EMBEDDING_DIMENSIONS',
  'ASSISTANT_TRANSCRIPTION_BASE_URL',
  'ASSISTANT_TRANSCRIPTION_API_KEY',
];

export interface ComposeEnvOptions {
  /** Queue mode: Redis and one n8n worker (COMPOSE_PROFILES=queue). */
  queue: boolean;
  /** Where the Caddyfile and certs/ are on the host (https.ts --compose writes them). */
  caddyDir: string;
  /** For tests: a cheaper bcrypt cost. */
  bcryptRounds?: number;
}

/**
 * The compose settings from the answers and the current compose settings (secrets and the operator's own settings
 * kept). A secret is generated only when missing; the owner's hash is made again only when the password changed.
 */
export function composeSettings(
  answers: Record<string, string>,
  current: Record<string, string>,
  options: ComposeEnvOptions,
): Record<string, string> {
  // Settings the operator added (e.g. HTTPS_PORT, JUDGE_OPENAI_MODEL) are kept.
  const next: Record<string, string> = Object.fromEntries(
    Object.entries(current).map(([name, value]) => [name, unquote(value)]),
  );
  for (const [name, make] of Object.entries(GENERATED)) next[name] = current[name] || make();
  for (const name of FROM_ANSWERS) {
    const value = answers[name] ?? current[name];
    if (value !== undefined && value !== '') next[name] = value;
  }
  for (const name of CLEARED_WHEN_OFF) if (answers[name] !== undefined) next[name] = answers[name];
  next.OWNER_EMAIL ??= 'owner@example.com';
  // A model server on this host (a local runner such as Ollama): from inside the gateway's container the host is
  // host.docker.internal (docker-compose.yml maps it to the host's gateway), not its own loopback.
  for (const name of PROVIDER_BASE_URLS) {
    if (next[name]) next[name] = hostFromContainers(next[name]);
  }
  // Voice and embeddings through the gateway only with their provider; without, the credential's base URL stays empty.
  next.ASSISTANT_TRANSCRIPTION_GATEWAY_URL = next.ASSISTANT_TRANSCRIPTION_BASE_URL?.trim()
    ? `${GATEWAY_IN_COMPOSE}/transcription/v1`
    : '';
  // The console's web chat shows its microphone only when the assistant can transcribe.
  next.JUDGE_CONSOLE_ASSISTANT_VOICE = next.ASSISTANT_TRANSCRIPTION_GATEWAY_URL ? 'on' : 'off';
  next.ASSISTANT_EMBEDDINGS_GATEWAY_URL = next.ASSISTANT_EMBEDDINGS_BASE_URL?.trim()
    ? `${GATEWAY_IN_COMPOSE}/embeddings/v1`
    : '';
  const hash = unquote(current.OWNER_PASSWORD_HASH ?? '');
  next.OWNER_PASSWORD_HASH =
    hash && current.OWNER_PASSWORD === next.OWNER_PASSWORD && bcrypt.compareSync(next.OWNER_PASSWORD, hash)
      ? hash
      : bcrypt.hashSync(next.OWNER_PASSWORD, options.bcryptRounds ?? 10);
  next.COMPOSE_PROFILES = options.queue ? 'queue' : '';
  next.N8N_EXECUTIONS_MODE = options.queue ? 'queue' : 'regular';
  next.CADDYFILE = `${options.caddyDir}/Caddyfile`;
  next.CADDY_CERTS_DIR = `${options.caddyDir}/certs`;
  // As the assistant-setup service sees the certificate (mounted at /certs); only without a domain.
  next.ASSISTANT_WEBHOOK_CERTIFICATE = answers.ASSISTANT_DOMAIN?.trim() ? '' : '/certs/server.pem';
  for (const [name, value] of Object.entries(next)) {
    if (/[\r\n]/.test(value)) throw new Error(`${name}: a setting is one line`);
    // Unquoted values in an env file: compose would interpolate $, read a leading quote or " #" as syntax.
    if (name !== 'OWNER_PASSWORD_HASH' && (/[$\\]|\s#/.test(value) || /^['"]/.test(value))) {
      throw new Error(`${name}: $, backslashes, a leading quote and " #" cannot be written in compose settings`);
    }
  }
  return next;
}

/** `url` with a loopback host (127.0.0.1, localhost, [::1]) replaced by host.docker.internal. */
export function hostFromContainers(url: string): string {
  return url.replace(/^(https?:\/\/)(127\.0\.0\.1|localhost|\[::1\])(?=[:/]|$)/i, '$1host.docker.internal');
}

function unquote(value: string): string {
  return value.startsWith("'") && value.endsWith("'") ? value.slice(1, -1) : value;
}

export function renderComposeEnv(settings: Record<string, string>): string {
  const lines = Object.entries(settings).map(([name, value]) =>
    name === 'OWNER_PASSWORD_HASH' ? `${name}='${value}'` : `${name}=${value}`,
  );
  return `# docker compose settings of this install (setup.sh). Secrets: keep this file private (mode 600).\n${lines.join('\n')}\n`;
}

if (require.main === module) {
  try {
    const argv = process.argv.slice(2);
    const flag = (name: string) => flagValue(argv, name);
    const envFile = flag('--env');
    const out = flag('--out');
    const caddyDir = flag('--caddy-dir') ?? '/etc/judge-assistant/caddy';
    if (!envFile || !out) throw new Error('--env (the answers, local.env) and --out (compose.env) are required');
    const current = existsSync(out) ? parseEnv(readFileSync(out, 'utf8'), out) : {};
    const next = composeSettings(readEnvFile(envFile), current, { queue: argv.includes('--queue'), caddyDir });
    writeFileSync(out, renderComposeEnv(next), { mode: 0o600 });
    chmodSync(out, 0o600);
    const changed = Object.keys(next).filter((name) => unquote(current[name] ?? '') !== next[name]);
    const secrets = new Set([...Object.keys(GENERATED), 'OWNER_PASSWORD_HASH', 'ASSISTANT_LLM_API_KEY', 'N8N_API_KEY']);
    secrets.add('ASSISTANT_TELEGRAM_BOT_TOKEN');
    secrets.add('ASSISTANT_SLACK_BOT_TOKEN');
    secrets.add('ASSISTANT_SLACK_APP_TOKEN');
    secrets.add('ASSISTANT_EMAIL_IMAP_PASSWORD');
    secrets.add('ASSISTANT_EMAIL_SMTP_PASSWORD');
    secrets.add('JUDGE_OPENAI_API_KEY');
    secrets.add('ASSISTANT_EMBEDDINGS_API_KEY');
    secrets.add('ASSISTANT_TRANSCRIPTION_API_KEY');
    console.log(
      changed.length === 0
        ? `compose settings unchanged (${out})`
        : `compose settings written to ${out} (mode 600); changed: ${changed
            .map((name) => (secrets.has(name) ? `${name} (secret)` : `${name}=${next[name]}`))
            .join(', ')}`,
    );
  } catch (error) {
    console.error(`compose-env: ${(error as Error).message}`);
    process.exit(1);
  }
}
