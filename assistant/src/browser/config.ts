// The browser service's settings, from its environment (docs/WEB.md). A bad value is an AssistantInputError naming
// the variable; the key is required and never logged.
import { AssistantInputError } from '../errors';
import { outboundAllowList, protectedEndpointsFromEnv, type ProtectedEndpoint } from '../outbound';
import { integerSetting } from '../web/settings';

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
}

export const DEFAULT_BROWSER_PORT = 8790;
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
export const MIN_KEY_LENGTH = 16;

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
  };
}
