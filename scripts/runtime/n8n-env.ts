// The environment n8n runs with: the fixed settings every stack shares, and a stack's ports, database and owner.
import { createRequire } from 'node:module';
import path from 'node:path';
import { N8N_MODULES, NODE24 } from './n8n';
import type { PostgresServer } from './postgres';
import { freePort } from './process';
import type { StackOptions } from './stack-types';

/** A fixed key for throw-away test stacks only (nothing they encrypt outlives the run). */
export const TEST_ENCRYPTION_KEY = 'test-only-encryption-key-not-for-real-data';
export const DEFAULT_OWNER = { email: 'owner@example.com', password: 'Owner-password-1' };

/** The external hook file that answers oversized and malformed webhook bodies in each webhook's envelope. */
export const WEBHOOK_GUARD_FILE = path.join(__dirname, 'webhook-guard.js');

/** n8n settings: performance (see docs/RUNTIME.md), webhook protection, and nothing that calls the internet. */
export function baseN8nEnv(): Record<string, string> {
  return {
    // Webhook protection (docs/N8N-JUDGE.md, "What n8n answers before the workflow"): n8n's error answers carry no
    // stack trace (it adds one unless NODE_ENV is production), bodies up to n8n's limit (MiB, n8n's default made
    // explicit), and the guard that refuses oversized, malformed or too deeply nested bodies in each route's envelope
    // instead of n8n's 500/422 (scripts/runtime/webhook-guard.js, loaded by n8n as an external hook).
    NODE_ENV: 'production',
    N8N_PAYLOAD_SIZE_MAX: '16',
    EXTERNAL_HOOK_FILES: WEBHOOK_GUARD_FILE,
    // Performance (measured in docs/BENCHMARKS.md, "n8n wrapper"):
    // an execution takes an expression isolate only when it evaluates an expression, so the wrapper's
    // expression-free success path never waits for one (n8n's default takes one per execution);
    N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
    // an execution runs ~20 queries (execution rows, status, credentials, statistics): concurrent webhooks need
    // more than n8n's default pool of 2 connections.
    DB_POSTGRESDB_POOL_SIZE: '10',
    // Executions that are not kept (the assistant saves no successful ones) are soft-deleted by n8n; remove them
    // within a minute rather than an hour, so no message or prompt stays at rest longer than needed.
    EXECUTIONS_DATA_HARD_DELETE_BUFFER: '0',
    EXECUTIONS_DATA_PRUNE_HARD_DELETE_INTERVAL: '1',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
    N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
    N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
    N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
    N8N_REINSTALL_MISSING_PACKAGES: 'false',
    N8N_AI_ENABLED: 'false',
    N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
    N8N_SECURE_COOKIE: 'false',
    N8N_RUNNERS_ENABLED: 'true',
    GENERIC_TIMEZONE: 'UTC',
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
    EXTERNAL_FRONTEND_HOOKS_URLS: '',
    N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
  };
}

function bcryptHash(password: string): string {
  // n8n's own bcryptjs, so the hash is exactly what it checks at login.
  const requireFromN8n = createRequire(path.join(N8N_MODULES, 'n8n', 'package.json'));
  const bcrypt = requireFromN8n('bcryptjs') as { hashSync(value: string, rounds: number): string };
  return bcrypt.hashSync(password, 10);
}

export interface N8nSettings {
  n8nUrl: string;
  owner: { email: string; password: string };
  /** n8n's settings (Stack.env). */
  env: Record<string, string>;
  /** What n8n and its CLI run with: the settings, PATH, HOME and LANG. */
  processEnv: NodeJS.ProcessEnv;
}

/** Free ports, the owner, and the environment n8n runs with. */
export async function n8nSettings(
  options: StackOptions,
  userFolder: string,
  postgres: PostgresServer,
): Promise<N8nSettings> {
  const port = options.port ?? (await freePort());
  const n8nUrl = `http://127.0.0.1:${port}`;
  const owner = options.owner ?? DEFAULT_OWNER;
  const env: Record<string, string> = {
    ...baseN8nEnv(),
    N8N_USER_FOLDER: userFolder,
    N8N_ENCRYPTION_KEY: options.encryptionKey ?? TEST_ENCRYPTION_KEY,
    N8N_PORT: String(port),
    // The task runners' broker: a free port too, so stacks can run side by side.
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_EDITOR_BASE_URL: `${n8nUrl}/`,
    WEBHOOK_URL: `${n8nUrl}/`,
    DB_TYPE: 'postgresdb',
    DB_POSTGRESDB_HOST: '127.0.0.1',
    DB_POSTGRESDB_PORT: String(postgres.port),
    DB_POSTGRESDB_DATABASE: postgres.database,
    DB_POSTGRESDB_USER: postgres.user,
    DB_POSTGRESDB_PASSWORD: postgres.password ?? '',
    N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
    N8N_INSTANCE_OWNER_EMAIL: owner.email,
    N8N_INSTANCE_OWNER_FIRST_NAME: options.owner?.firstName ?? 'Instance',
    N8N_INSTANCE_OWNER_LAST_NAME: options.owner?.lastName ?? 'Owner',
    N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password),
    // The outbound guard (assistant-core): what it lets through, and the judge it keeps out of reach.
    ...(process.env.ASSISTANT_OUTBOUND_ALLOW ? { ASSISTANT_OUTBOUND_ALLOW: process.env.ASSISTANT_OUTBOUND_ALLOW } : {}),
    ...(process.env.SYSTEMONE_JUDGE_URL ? { ASSISTANT_JUDGE_URL: process.env.SYSTEMONE_JUDGE_URL } : {}),
    // Web search and read_page settings (docs/WEB.md), as the operator set them.
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] =>
          /^ASSISTANT_(SEARCH|SEARXNG|DUCKDUCKGO|READ)_/.test(entry[0]) && typeof entry[1] === 'string',
      ),
    ),
    ...(options.env ?? {}),
  };
  // n8n and its CLI see only what they need: PATH, HOME and the settings above (no unrelated secrets).
  const processEnv: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(NODE24)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? userFolder,
    LANG: 'C.UTF-8',
    ...env,
  };
  return { n8nUrl, owner, env, processEnv };
}
