// A real n8n 2.41.1 on Node 24 + Postgres 17, with the project installed into it:
// the nodes package, credentials from templates, workflows from folders, activated through the public API.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CREDENTIAL_TEMPLATES_DIR, loadCredentialTemplates } from './credentials';
import { assertRuntimeInstalled, N8N_BIN, N8N_MODULES, NODE24, REPO_ROOT, runN8nCli } from './n8n';
import { startPostgres, type PostgresServer } from './postgres';
import { freePort, isAlive, processTree, sleep, StartupFailed, stopProcess, waitFor } from './process';
import { startBrowserService, type BrowserServiceProcess } from './browser';
import { startRedis, type RedisServer } from './redis';
import { N8N_API_CREDENTIAL_ID, ownerApiKey } from 'assistant-core';
import { syncIntoN8n, type SyncResult } from './importer';
import { isActivatableTrigger, readWorkflowFiles, type WorkflowFile } from './workflow-files';
import {
  needsPrivateIds,
  readPrivateWebhookIds,
  withPrivateWebhookIds,
  writePrivateWebhookIds,
} from './private-webhook-ids';

export const NODES_PACKAGE_NAME = 'n8n-nodes-judge-assistant';
export const WORKFLOWS_DIR = path.join(REPO_ROOT, 'workflows');

export interface StackOptions {
  /** n8n's user folder (N8N_USER_FOLDER). Default: a fresh temporary folder, removed on stop. */
  userFolder?: string;
  /** A running Postgres to use (its database must be n8n's own), or options for one started with the stack. */
  postgres?: PostgresServer | { dataDir?: string; port?: number; password?: string };
  /** n8n's HTTP port on 127.0.0.1. Default: a free port. */
  port?: number;
  /** Folders of workflow JSON to import. Default: the repository's workflows/. */
  workflowDirs?: string[];
  /** More folders imported after `workflowDirs` (e.g. test-only workflows). */
  extraWorkflowDirs?: string[];
  /**
   * A JSON file remembering what was imported (importer.js: workflow versions, keyed hashes). When given, a workflow
   * is imported only when missing or when the repo's `meta.version` is higher (an operator's edit of the installed
   * one is kept as a copy first), a credential only when its rendered settings changed, and only workflows imported
   * by this start are activated: edits made in the editor to a kept instance survive restarts and upgrades.
   * Default: import all (a fresh n8n).
   */
  importStateFile?: string;
  /**
   * Where the installation's private ids of Telegram Trigger nodes are kept (private-webhook-ids.js: n8n derives
   * their webhook secret from the node id). Default: fresh random ids for this start.
   */
  privateWebhookIdsFile?: string;
  /** An API key from an earlier start of this kept instance; reused if n8n still accepts it. */
  apiKey?: string;
  /** Folders of credential templates. Default: scripts/runtime/credentials/. */
  credentialDirs?: string[];
  /**
   * Which imported workflows to activate: every one with a trigger node other than the manual trigger (default:
   * webhooks, schedules, sub-workflow triggers, …), all, none, or the listed ids.
   */
  activate?: 'triggered' | 'all' | 'none' | string[];
  /** Extra environment for n8n itself (it also fills credential templates). */
  env?: Record<string, string>;
  /** Values only for filling credential templates (on top of process.env); n8n's process does not get them. */
  credentialEnv?: Record<string, string>;
  /** Default: a fixed key for throw-away stacks. A kept user folder should pass its own. */
  encryptionKey?: string;
  owner?: { email: string; password: string; firstName?: string; lastName?: string };
  /** Copy the built nodes package (root package.json + dist/) into n8n. Default: true when dist/ exists. */
  installNodesPackage?: boolean;
  /** Receives progress lines. Default: silent. */
  log?: (line: string) => void;
  /**
   * Start the browser service (docs/WEB.md) for read_page's JavaScript pages, and give n8n its URL and key. Default:
   * when Chromium is installed (ASSISTANT_CHROMIUM_PATH, or Debian's /usr/bin/chromium).
   */
  browser?: boolean;
  /**
   * n8n's queue mode (the scale-out path, docs/RUNTIME.md): Redis (Debian's redis-server) and one n8n worker that
   * runs the executions the main instance puts on the queue (webhooks, schedules). Default: off (regular mode).
   */
  queue?: boolean;
}

export type ImportedWorkflow = WorkflowFile;
export { isActivatableTrigger, readWorkflowFiles };

export interface Stack {
  /** http://127.0.0.1:<port> (the editor and the REST/public API). */
  n8nUrl: string;
  /** http://127.0.0.1:<port>/webhook (production webhooks). */
  webhookUrl: string;
  apiKey: string;
  owner: { email: string; password: string };
  postgres: { url: string; port: number; database: string };
  userFolder: string;
  logFile: string;
  workflows: ImportedWorkflow[];
  /** What this start imported (and kept as copies, and which credentials it wrote). */
  imports: SyncResult;
  /** The environment n8n runs with (no credentials' plain data: those are encrypted in the database). */
  env: Record<string, string>;
  /** PIDs of n8n and its child processes (task runners) and of the stack's own Postgres. */
  pids(): number[];
  /** n8n's own process, for a supervisor: its PID, when it ends, and a restart with the same settings. */
  n8n: {
    pid(): number;
    whenExited(): Promise<ProcessExit>;
    /**
     * Stops n8n if it runs, starts it again (after `downMs`, default at once) and waits until it is ready (workflows
     * stay as they are).
     */
    restart(options?: { downMs?: number }): Promise<void>;
  };
  /** The browser service, when it runs. */
  browser?: StackBrowser;
  /** In queue mode: the worker (its log names each execution it runs) and Redis. */
  queue?: {
    workerLogFile: string;
    workerPid(): number;
    /** Stops the worker if it runs and starts it again, ready. */
    restartWorker(): Promise<void>;
    redis: { host: string; port: number };
  };
  /** Calls the public API (/api/v1/...) with the API key; throws on a non-2xx answer, naming it. */
  api<T = unknown>(apiPath: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** Calls a production webhook (path after /webhook/), retrying a 404 just after activation. */
  webhook(webhookPath: string, init?: RequestInit & { retry404Ms?: number }): Promise<Response>;
  stop(): Promise<void>;
}

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

/** Copies the nodes package into <user folder>/.n8n/nodes, where n8n loads it as an installed package. */
function installNodesPackage(userFolder: string): void {
  const modules = path.join(userFolder, '.n8n', 'nodes', 'node_modules');
  const target = path.join(modules, NODES_PACKAGE_NAME);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
  cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
  // n8n-workflow must be n8n's own copy, so `instanceof` checks in n8n hold for our errors.
  const links: Record<string, string> = { 'n8n-workflow': path.join(N8N_MODULES, 'n8n-workflow') };
  // Packages the bundles leave external (scripts/build-nodes.mjs) resolve from the project's node_modules.
  for (const name of ['onnxruntime-node', '@huggingface/tokenizers']) {
    links[name] = path.join(REPO_ROOT, 'node_modules', name);
  }
  for (const [name, source] of Object.entries(links)) {
    if (!existsSync(source)) continue;
    const link = path.join(modules, name);
    mkdirSync(path.dirname(link), { recursive: true });
    rmSync(link, { recursive: true, force: true });
    symlinkSync(source, link, 'dir');
  }
  const manifest = path.join(userFolder, '.n8n', 'nodes', 'package.json');
  if (!existsSync(manifest)) {
    writeFileSync(manifest, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
  }
}

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

type Cleanup = () => Promise<void>;
type Log = (line: string) => void;

/** Runs the clean-ups registered so far, newest first, each once; a failing one does not stop the others. */
async function runCleanups(cleanups: Cleanup[]): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

/** Postgres: the caller's, or our own (stopped by the clean-up). */
async function usePostgres(options: StackOptions, cleanups: Cleanup[], log: Log): Promise<PostgresServer> {
  if (options.postgres && 'url' in options.postgres) return options.postgres;
  const postgres = await startPostgres({ database: 'n8n', ...(options.postgres ?? {}) });
  cleanups.push(() => postgres.stop());
  log(`postgres 17 on ${postgres.port}`);
  return postgres;
}

/** n8n's user folder: the caller's, or a fresh temporary one (removed by the clean-up). */
function prepareUserFolder(options: StackOptions, cleanups: Cleanup[]): string {
  const temporaryFolder = options.userFolder === undefined;
  const userFolder = temporaryFolder ? mkdtempSync(path.join(tmpdir(), 'n8n-')) : path.resolve(options.userFolder!);
  mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
  if (temporaryFolder) cleanups.push(async () => rmSync(userFolder, { recursive: true, force: true }));
  return userFolder;
}

/** The nodes package, when asked for (default: when it is built). */
function installNodesPackageIfWanted(options: StackOptions, userFolder: string): void {
  const wantNodes = options.installNodesPackage ?? existsSync(path.join(REPO_ROOT, 'dist'));
  if (wantNodes) installNodesPackage(userFolder);
}

interface N8nSettings {
  n8nUrl: string;
  owner: { email: string; password: string };
  /** n8n's settings (Stack.env). */
  env: Record<string, string>;
  /** What n8n and its CLI run with: the settings, PATH, HOME and LANG. */
  processEnv: NodeJS.ProcessEnv;
}

/** Free ports, the owner, and the environment n8n runs with. */
async function n8nSettings(options: StackOptions, userFolder: string, postgres: PostgresServer): Promise<N8nSettings> {
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

/**
 * Credentials and workflows into n8n (importer.js): without an import state file everything is imported (a fresh
 * n8n); with one, only what is missing, newer in the repo, or (credentials) rendered differently, and an operator's
 * edit of a workflow about to be replaced is kept as a copy. Returns every workflow file read and what happened.
 */
async function importIntoN8n(
  options: StackOptions,
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  log: Log,
): Promise<{ workflows: ImportedWorkflow[]; sync: SyncResult }> {
  const credentials = loadCredentialTemplates(options.credentialDirs ?? [CREDENTIAL_TEMPLATES_DIR], {
    ...process.env,
    ...(options.env ?? {}),
    ...(options.credentialEnv ?? {}),
  });
  const workflowDirs = [...(options.workflowDirs ?? [WORKFLOWS_DIR]), ...(options.extraWorkflowDirs ?? [])];
  const workflows = readWorkflowFiles(workflowDirs);
  // What is imported: the file, or (for Telegram Triggers) a copy with this installation's private node ids.
  const privateIds = readPrivateWebhookIds(options.privateWebhookIdsFile);
  const shipped = workflows.map((w) => {
    const json = JSON.parse(readFileSync(w.file, 'utf8'));
    return { id: w.id, file: w.file, json: needsPrivateIds(json) ? withPrivateWebhookIds(json, privateIds) : json };
  });
  if (options.privateWebhookIdsFile) writePrivateWebhookIds(options.privateWebhookIdsFile, privateIds);
  const sync = await syncIntoN8n({
    workflows: shipped,
    credentials,
    stateFile: options.importStateFile,
    hashKey: options.encryptionKey ?? TEST_ENCRYPTION_KEY,
    runCli: (args) => runN8nCli(args, processEnv),
    stagingDir: userFolder,
    log,
  });
  return { workflows, sync };
}

/** The id of the "n8n API" credential the assistant's forget tools use to purge a user's saved executions. */
export { N8N_API_CREDENTIAL_ID };

/**
 * The "n8n API" credential (the seed's workflow tool API key): known only once n8n runs and the key exists, so it is
 * written after the start, through the same importer (only when it changed).
 */
async function importApiCredential(
  options: StackOptions,
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  target: { apiKey: string; n8nUrl: string },
  log: Log,
): Promise<void> {
  await syncIntoN8n({
    workflows: [],
    credentials: [
      {
        id: N8N_API_CREDENTIAL_ID,
        name: 'Assistant n8n API',
        type: 'n8nApi',
        data: { apiKey: target.apiKey, baseUrl: `${target.n8nUrl}/api/v1` },
      },
    ],
    stateFile: options.importStateFile,
    hashKey: options.encryptionKey ?? TEST_ENCRYPTION_KEY,
    runCli: (args) => runN8nCli(args, processEnv),
    stagingDir: userFolder,
    log,
  });
}

/** How a supervised process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface N8nProcess {
  child: ChildProcess;
  logFile: string;
  /** n8n's PID and every PID seen in its process tree (task runners), all stopped by the clean-up. */
  knownPids: Set<number>;
  exited(): boolean;
  /** Resolves when the current n8n process ends, however it ends. */
  whenExited(): Promise<ProcessExit>;
  /** Stops what runs (if anything) and starts n8n again with the same settings (no import). */
  respawn(): void;
  /** Stops n8n and whatever of its process group is left. */
  stop(): Promise<void>;
}

/**
 * n8n itself (`n8n start`, or a queue-mode `n8n worker`), in its own process group so its task runners stop with it
 * (by the clean-up).
 */
function spawnN8n(
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  role: { args: string[]; logName: string } = { args: ['start'], logName: 'n8n.log' },
): N8nProcess {
  const logFile = path.join(userFolder, role.logName);
  const knownPids = new Set<number>();
  let exit: Promise<ProcessExit>;
  let exited = false;
  const launch = (): ChildProcess => {
    const logFd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(NODE24, [N8N_BIN, ...role.args], {
        env: processEnv,
        stdio: ['ignore', logFd, logFd],
        detached: true,
      });
    } finally {
      closeSync(logFd);
    }
    exited = false;
    exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        exited = true;
        resolve({ code, signal });
      }),
    );
    knownPids.add(child.pid!);
    return child;
  };
  const n8n: N8nProcess = {
    child: launch(),
    logFile,
    knownPids,
    exited: () => exited,
    whenExited: () => exit,
    respawn: () => {
      n8n.child = launch();
    },
    stop: async () => {
      for (const pid of processTree(n8n.child.pid!)) knownPids.add(pid);
      await stopProcess(n8n.child, { signal: 'SIGTERM', timeoutMs: 20_000 });
      // Anything of its group still running (a task runner) goes too.
      for (const pid of knownPids) {
        if (isAlive(pid)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    },
  };
  const killGroupOnExit = () => {
    try {
      process.kill(-n8n.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killGroupOnExit);
  cleanups.push(async () => {
    process.off('exit', killGroupOnExit);
    await n8n.stop();
  });
  return n8n;
}

/** Waits for n8n's readiness; a failure keeps the end of n8n's log (the clean-up may remove the user folder). */
async function waitUntilReady(n8n: N8nProcess, n8nUrl: string, log: Log): Promise<void> {
  const { logFile } = n8n;
  try {
    await waitFor(
      async () => {
        if (n8n.exited()) throw new StartupFailed(`n8n exited during start-up`);
        const response = await fetch(`${n8nUrl}/healthz/readiness`);
        return response.ok;
      },
      { timeoutMs: 240_000, what: `n8n readiness on ${n8nUrl}`, intervalMs: 500 },
    );
  } catch (error) {
    // The user folder (and its log) may be removed by the clean-up: keep the end of the log in the error.
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n') : '';
    throw new Error(`${(error as Error).message}; last lines of ${logFile}:\n${tail}`);
  }
  log(`n8n ready on ${n8nUrl}`);
}

/** Calls n8n's public API (/api/v1/...) with the API key; throws on a non-2xx answer, naming it. */
function publicApi(n8nUrl: string, apiKey: string): Stack['api'] {
  return async <T>(apiPath: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${n8nUrl}/api/v1${apiPath}`, {
      method: init.method ?? 'GET',
      headers: { 'X-N8N-API-KEY': apiKey, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return (await readJson(response, `${init.method ?? 'GET'} /api/v1${apiPath}`)) as T;
  };
}

/** Activates the workflows `options.activate` names (default: the triggered ones) and marks them active. */
async function activateWorkflows(
  options: StackOptions,
  workflows: ImportedWorkflow[],
  sync: SyncResult,
  api: Stack['api'],
  log: Log,
): Promise<void> {
  const mode = options.activate ?? 'triggered';
  for (const workflow of workflows) {
    const wanted = Array.isArray(mode)
      ? mode.includes(workflow.id)
      : mode === 'all' || (mode === 'triggered' && workflow.triggered);
    if (!wanted) continue;
    // A kept instance: only what this start imported (the import deactivates it); the rest stays as the operator
    // left it, deactivated ones included.
    if (options.importStateFile && !sync.importedWorkflows.includes(workflow.id)) continue;
    try {
      await api(`/workflows/${workflow.id}/activate`, { method: 'POST' });
    } catch (error) {
      throw new Error(`activating workflow "${workflow.name}" (${workflow.file}): ${(error as Error).message}`);
    }
    workflow.active = true;
  }
  const activeCount = workflows.filter((w) => w.active).length;
  if (activeCount > 0) log(`activated ${activeCount} workflow(s)`);
}

/** Calls a production webhook (path after /webhook/), retrying a 404 just after activation. */
function webhookCaller(n8nUrl: string): Stack['webhook'] {
  return async (webhookPath: string, init: RequestInit & { retry404Ms?: number } = {}) => {
    const deadline = Date.now() + (init.retry404Ms ?? 10_000);
    for (;;) {
      const response = await fetch(`${n8nUrl}/webhook/${webhookPath.replace(/^\/+/, '')}`, init);
      if (response.status !== 404 || Date.now() > deadline) return response;
      await response.arrayBuffer();
      await sleep(250);
    }
  };
}

/** PIDs of n8n and its process tree, and of the stack's own Postgres until the stack is stopped. */
function stackPids(
  options: StackOptions,
  n8n: N8nProcess,
  postgres: PostgresServer,
  cleanups: Cleanup[],
): () => number[] {
  return () => {
    const alive = n8n.exited() ? [] : processTree(n8n.child.pid!);
    for (const pid of alive) n8n.knownPids.add(pid);
    const all = [...n8n.knownPids];
    if (cleanups.length > 0 && !(options.postgres && 'url' in options.postgres)) all.push(postgres.pid);
    return [...new Set(all)];
  };
}

/** The stack's browser service: where it is, its log, and a restart on the same port and key (profiles kept). */
export interface StackBrowser {
  url: string;
  logFile: string;
  pid(): number;
  restart(): Promise<void>;
}

/**
 * The browser service, when wanted and Chromium is there; its URL and key go into n8n's environment. Users' browser
 * profiles (their sign-ins) live in the user folder's browser-profiles/, so they survive restarts of the stack.
 */
async function startBrowserIfWanted(
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
    env: { ASSISTANT_BROWSER_PROFILES_DIR: path.join(userFolder, 'browser-profiles') },
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
      logFile,
      pid: () => current.pid(),
      restart: async () => {
        await current.stop();
        current = await startBrowserService({ ...settings, port: first.port, key: first.key });
      },
    },
  };
}

/** Queue mode: Redis, and the settings that make the main instance queue its executions there. */
async function startQueueRedis(
  userFolder: string,
  env: Record<string, string>,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  log: Log,
): Promise<RedisServer> {
  const redis = await startRedis({ dir: userFolder });
  cleanups.push(() => redis.stop());
  log(`Redis on ${redis.host}:${redis.port} (queue mode)`);
  const queueEnv = {
    EXECUTIONS_MODE: 'queue',
    QUEUE_BULL_REDIS_HOST: redis.host,
    QUEUE_BULL_REDIS_PORT: String(redis.port),
  };
  Object.assign(env, queueEnv);
  Object.assign(processEnv, queueEnv);
  return redis;
}

/** One `n8n worker` beside the main instance: its own task-runner broker and health port, ready when /healthz is. */
async function startWorker(
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  log: Log,
): Promise<{ process: N8nProcess; restart(): Promise<void> }> {
  const healthPort = await freePort();
  const workerEnv: NodeJS.ProcessEnv = {
    ...processEnv,
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    QUEUE_HEALTH_CHECK_ACTIVE: 'true',
    QUEUE_HEALTH_CHECK_PORT: String(healthPort),
    N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
  };
  const worker = spawnN8n(userFolder, workerEnv, cleanups, {
    args: ['worker', '--concurrency=10'],
    logName: 'n8n-worker.log',
  });
  const ready = async () => {
    try {
      await waitFor(
        async () => {
          if (worker.exited()) throw new StartupFailed('the n8n worker exited during start-up');
          return (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok;
        },
        { timeoutMs: 240_000, what: `the n8n worker's readiness on port ${healthPort}`, intervalMs: 500 },
      );
    } catch (error) {
      const tail = existsSync(worker.logFile)
        ? readFileSync(worker.logFile, 'utf8').split('\n').slice(-40).join('\n')
        : '';
      throw new Error(`${(error as Error).message}; last lines of ${worker.logFile}:\n${tail}`);
    }
  };
  await ready();
  log(`n8n worker ready (queue mode; log ${worker.logFile})`);
  return {
    process: worker,
    restart: async () => {
      await worker.stop();
      worker.respawn();
      await ready();
    },
  };
}

/**
 * Starts Postgres (unless given one), prepares n8n's user folder with the nodes package, credentials and workflows,
 * starts n8n, gets an API key and activates the workflows. A failing step stops everything started before it.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  assertRuntimeInstalled();
  const log = options.log ?? (() => undefined);
  const cleanups: Cleanup[] = [];
  try {
    const postgres = await usePostgres(options, cleanups, log);
    const userFolder = prepareUserFolder(options, cleanups);
    installNodesPackageIfWanted(options, userFolder);
    const { n8nUrl, owner, env, processEnv } = await n8nSettings(options, userFolder, postgres);
    const browser = await startBrowserIfWanted(options, userFolder, env, cleanups, log);
    if (browser) {
      Object.assign(env, browser.process.clientEnv);
      Object.assign(processEnv, browser.process.clientEnv);
    }
    const redis = options.queue ? await startQueueRedis(userFolder, env, processEnv, cleanups, log) : undefined;
    const { workflows, sync } = await importIntoN8n(options, userFolder, processEnv, log);
    const n8n = spawnN8n(userFolder, processEnv, cleanups);
    await waitUntilReady(n8n, n8nUrl, log);
    const worker = redis ? await startWorker(userFolder, processEnv, cleanups, log) : undefined;
    const apiKey = await ownerApiKey(n8nUrl, owner, options.apiKey);
    await importApiCredential(options, userFolder, processEnv, { apiKey, n8nUrl }, log);
    const api = publicApi(n8nUrl, apiKey);
    await activateWorkflows(options, workflows, sync, api, log);
    return {
      n8nUrl,
      webhookUrl: `${n8nUrl}/webhook`,
      apiKey,
      owner: { email: owner.email, password: owner.password },
      postgres: { url: postgres.url, port: postgres.port, database: postgres.database },
      userFolder,
      logFile: n8n.logFile,
      workflows,
      imports: sync,
      env,
      // The browser service first, so that the stack's own Postgres stays last (the e2e checks read it there).
      pids: () => [...(browser ? [browser.stack.pid()] : []), ...stackPids(options, n8n, postgres, cleanups)()],
      browser: browser?.stack,
      queue:
        redis && worker
          ? {
              workerLogFile: worker.process.logFile,
              workerPid: () => worker.process.child.pid!,
              restartWorker: () => worker.restart(),
              redis: { host: redis.host, port: redis.port },
            }
          : undefined,
      n8n: {
        pid: () => n8n.child.pid!,
        whenExited: () => n8n.whenExited(),
        restart: async (restartOptions = {}) => {
          await n8n.stop();
          if (restartOptions.downMs) await sleep(restartOptions.downMs);
          n8n.respawn();
          try {
            await waitUntilReady(n8n, n8nUrl, log);
          } catch (error) {
            // Not ready: stopped, so the supervisor sees it gone and tries again (or gives up).
            await n8n.stop();
            throw error;
          }
        },
      },
      api,
      webhook: webhookCaller(n8nUrl),
      stop: () => runCleanups(cleanups),
    };
  } catch (error) {
    await runCleanups(cleanups);
    throw error;
  }
}
