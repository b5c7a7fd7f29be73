// The browser service's settings, from its environment (docs/WEB.md). A bad value is an AssistantInputError naming
// the variable; the key is required and never logged.
import path from 'node:path';

import { AssistantInputError } from '../errors';
import { outboundAllowList, protectedEndpointsFromEnv, type ProtectedEndpoint } from '../outbound';
import { integerSetting } from '../env-settings';

export interface BrowserServiceConfig {
  /** Where it listens: 127.0.0.1 by default (in compose, the internal network's address). */
  host: string;
  /** 8790 by default; 0 picks a free port. */
  port: number;
  key: string;
  /** Debian's and Ubuntu's Chromium by default. */
  chromiumPath: string;
  /** Renders at the same time; more wait in the queue, up to `queue`; beyond that the service answers busy. */
  concurrency: number;
  queue: number;
  /** The longest a render may take (queueing included); a request may ask for less. */
  renderTimeoutMs: number;
  /** The most bytes one render may load (the document and all its sub-resources), and the largest final HTML. */
  maxPageBytes: number;
  maxRedirects: number;
  /** ASSISTANT_OUTBOUND_ALLOW. */
  allow: string[];
  /** n8n's API and the judge (the service adds itself). */
  protect: ProtectedEndpoint[];
  sessions: SessionSettings;
}

/** The per-user interactive sessions (sessions.ts). */
export interface SessionSettings {
  /** Each user's profile (cookies, local storage): `<profilesDir>/<user>.json`, mode 0600, the folder 0700. */
  profilesDir: string;
  /** Users with a task open at once; another user's open is answered busy. */
  maxTasks: number;
  /** A task's working time, time waiting for its user excluded; the next step beyond it closes the task. */
  maxActiveMs: number;
  /** Pages a task may load; the step loading one more closes the task. */
  maxPages: number;
  /** A task with no step for this long (waiting for its user or not) is closed, its profile saved. */
  idleMs: number;
}

export const DEFAULT_BROWSER_PORT = 8790;
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
export const MIN_KEY_LENGTH = 16;
export const PROFILES_DIR_SETTING = 'ASSISTANT_BROWSER_PROFILES_DIR';

export function browserServiceConfigFromEnv(env: NodeJS.ProcessEnv = process.env): BrowserServiceConfig {
  const key = env.ASSISTANT_BROWSER_KEY?.trim() ?? '';
  if (key.length < MIN_KEY_LENGTH) {
    throw new AssistantInputError(
      'ASSISTANT_BROWSER_KEY',
      `is required: a random secret of at least ${MIN_KEY_LENGTH} characters (e.g. openssl rand -base64 24)`,
    );
  }
  return {
    host: env.ASSISTANT_BROWSER_HOST?.trim() || '127.0.0.1',
    port: integerSetting(env, 'ASSISTANT_BROWSER_PORT', DEFAULT_BROWSER_PORT, 0, 65535),
    key,
    chromiumPath: env.ASSISTANT_CHROMIUM_PATH?.trim() || DEFAULT_CHROMIUM_PATH,
    concurrency: integerSetting(env, 'ASSISTANT_BROWSER_CONCURRENCY', 2, 1, 32),
    queue: integerSetting(env, 'ASSISTANT_BROWSER_QUEUE', 16, 0, 1000),
    renderTimeoutMs: integerSetting(env, 'ASSISTANT_BROWSER_RENDER_TIMEOUT_MS', 30_000, 1_000, 300_000),
    maxPageBytes: integerSetting(
      env,
      'ASSISTANT_BROWSER_MAX_PAGE_BYTES',
      20 * 1024 * 1024,
      64 * 1024,
      512 * 1024 * 1024,
    ),
    maxRedirects: integerSetting(env, 'ASSISTANT_BROWSER_MAX_REDIRECTS', 5, 0, 20),
    allow: outboundAllowList(env),
    protect: protectedEndpointsFromEnv(env),
    sessions: {
      profilesDir: profilesDir(env),
      maxTasks: integerSetting(env, 'ASSISTANT_BROWSER_MAX_TASKS', 3, 1, 100),
      maxActiveMs: integerSetting(env, 'ASSISTANT_BROWSER_TASK_SECONDS', 300, 10, 86_400) * 1000,
      maxPages: integerSetting(env, 'ASSISTANT_BROWSER_TASK_PAGES', 30, 1, 1000),
      idleMs: integerSetting(env, 'ASSISTANT_BROWSER_TASK_IDLE_SECONDS', 600, 10, 86_400) * 1000,
    },
  };
}

/** ASSISTANT_BROWSER_PROFILES_DIR, by default `$XDG_STATE_HOME` (or `~/.local/state`)`/judge-assistant/browser-profiles`. */
function profilesDir(env: NodeJS.ProcessEnv): string {
  const set = env[PROFILES_DIR_SETTING]?.trim();
  if (set) {
    if (!path.isAbsolute(set)) throw new AssistantInputError(PROFILES_DIR_SETTING, `"${set}" must be an absolute path`);
    return path.normalize(set);
  }
  const xdg = env.XDG_STATE_HOME?.trim() ?? '';
  const home = env.HOME?.trim() ?? '';
  const state = path.isAbsolute(xdg) ? xdg : path.isAbsolute(home) ? path.join(home, '.local', 'state') : '';
  if (state === '') {
    throw new AssistantInputError(
      PROFILES_DIR_SETTING,
      "is required when HOME is not set: the folder for the users' browser profiles (e.g. /var/lib/assistant/browser-profiles)",
    );
  }
  return path.join(state, 'judge-assistant', 'browser-profiles');
}
