// What startStack takes and gives: its options, the running stack, and the types its parts share.
import type { SyncResult } from './importer';
import type { PostgresServer } from './postgres';
import type { WorkflowFile } from './workflow-files';

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
  /**
   * The model gateway every model call goes through (docs/MODELS.md). Default: the stack starts its own, with the
   * provider settings of the environment (ASSISTANT_LLM_BASE_URL, …); a running one's URL and key; or none (false).
   */
  gateway?: false | { url: string; key: string };
  /**
   * Tests only: the gateway the stack starts reads the caps' clock as now plus the seconds written in a file
   * (StackGateway.clockFile), so a test can move a budget window on. Never set by run.sh or the installer.
   */
  gatewayTestClock?: boolean;
}

export type ImportedWorkflow = WorkflowFile;

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
  /** The model gateway the credentials point at; `pid` and `logFile` only when the stack started it. */
  gateway?: StackGateway;
  /** In queue mode: the worker (its log names each execution it runs) and Redis. */
  queue?: {
    workerLogFile: string;
    workerPid(): number;
    /** Stops the worker if it runs and starts it again, ready. */
    restartWorker(): Promise<void>;
    workerWhenExited(): Promise<ProcessExit>;
    redis: StackRedis;
  };
  /** Calls the public API (/api/v1/...) with the API key; throws on a non-2xx answer, naming it. */
  api<T = unknown>(apiPath: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** Calls a production webhook (path after /webhook/), retrying a 404 just after activation. */
  webhook(webhookPath: string, init?: RequestInit & { retry404Ms?: number }): Promise<Response>;
  stop(): Promise<void>;
}

/** How a supervised process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The stack's model gateway: where it is, its key and log. */
export interface StackGateway {
  url: string;
  key: string;
  logFile?: string;
  pid?(): number;
  /** With gatewayTestClock: the file whose number of seconds the caps' clock runs ahead. */
  clockFile?: string;
}

/** Queue mode's Redis: where it is, and a restart on the same port. */
export interface StackRedis {
  host: string;
  port: number;
  pid(): number;
  whenExited(): Promise<ProcessExit>;
  restart(): Promise<void>;
}

/** The stack's browser service: where it is, its log, and a restart on the same port and key (profiles kept). */
export interface StackBrowser {
  url: string;
  key: string;
  logFile: string;
  pid(): number;
  whenExited(): Promise<ProcessExit>;
  restart(): Promise<void>;
}

/** Stops what a start step started; registered as it starts, run newest first. */
export type Cleanup = () => Promise<void>;
export type Log = (line: string) => void;
