// The web tools' settings, from the environment of the process that runs them (n8n for the node, the browser service
// for itself). Every bad value is an AssistantInputError naming the variable; unset means the documented default.
import { AssistantInputError } from '../errors';
import { envValue, integerSetting } from '../env-settings';
import { outboundAllowList, protectedEndpointsFromEnv, type ProtectedEndpoint } from '../outbound';

export const SEARCH_BACKENDS = ['duckduckgo', 'searxng'] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

export const DEFAULT_DUCKDUCKGO_URL = 'https://html.duckduckgo.com/html/';

export interface SearchSettings {
  backend: SearchBackendName;
  /** The engine's base URL: SearXNG's (e.g. http://searxng:8080) or DuckDuckGo's HTML endpoint. */
  baseUrl: string;
  timeoutMs: number;
}

export interface ReadSettings {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  cacheTtlMs: number;
}

export interface BrowserClientSettings {
  url: string;
  key: string;
}

export interface WebSettings {
  search: SearchSettings;
  read: ReadSettings;
  /** The browser service; undefined when ASSISTANT_BROWSER_URL is unset (pages are then never rendered). */
  browser: BrowserClientSettings | undefined;
  /** ASSISTANT_OUTBOUND_ALLOW. */
  allow: string[];
  /** n8n's own API and the judge (the outbound guard's protectedEndpointsFromEnv): never reachable. */
  protect: ProtectedEndpoint[];
}

type Env = NodeJS.ProcessEnv;

/** An http(s) base URL from `name`, without credentials; `fallback` when unset. */
export function urlSetting(env: Env, name: string, fallback?: string): string | undefined {
  const raw = envValue(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AssistantInputError(name, `"${raw}" is not an absolute URL (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AssistantInputError(name, `"${raw}" must be an http or https URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new AssistantInputError(name, 'must not contain a user name or password');
  }
  return url.href;
}

export function webSettingsFromEnv(env: Env = process.env): WebSettings {
  const backend = (envValue(env, 'ASSISTANT_SEARCH_BACKEND') ?? 'duckduckgo').toLowerCase();
  if (!(SEARCH_BACKENDS as readonly string[]).includes(backend)) {
    throw new AssistantInputError(
      'ASSISTANT_SEARCH_BACKEND',
      `"${backend}" is not a search backend; use ${SEARCH_BACKENDS.join(' or ')}`,
    );
  }
  const baseUrl =
    backend === 'searxng'
      ? urlSetting(env, 'ASSISTANT_SEARXNG_URL')
      : urlSetting(env, 'ASSISTANT_DUCKDUCKGO_URL', DEFAULT_DUCKDUCKGO_URL);
  if (baseUrl === undefined) {
    throw new AssistantInputError(
      'ASSISTANT_SEARXNG_URL',
      'is required with ASSISTANT_SEARCH_BACKEND=searxng (e.g. http://127.0.0.1:8888)',
    );
  }
  const browserUrl = urlSetting(env, 'ASSISTANT_BROWSER_URL');
  const browserKey = envValue(env, 'ASSISTANT_BROWSER_KEY');
  if (browserUrl !== undefined && browserKey === undefined) {
    throw new AssistantInputError('ASSISTANT_BROWSER_KEY', 'is required when ASSISTANT_BROWSER_URL is set');
  }
  return {
    search: {
      backend: backend as SearchBackendName,
      baseUrl,
      timeoutMs: integerSetting(env, 'ASSISTANT_SEARCH_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    read: {
      maxBytes: integerSetting(env, 'ASSISTANT_READ_MAX_BYTES', 10 * 1024 * 1024, 1024, 200 * 1024 * 1024),
      timeoutMs: integerSetting(env, 'ASSISTANT_READ_TIMEOUT_MS', 20_000, 100, 300_000),
      maxRedirects: integerSetting(env, 'ASSISTANT_READ_MAX_REDIRECTS', 5, 0, 20),
      cacheTtlMs: integerSetting(env, 'ASSISTANT_READ_CACHE_MS', 5 * 60_000, 0, 24 * 3_600_000),
    },
    browser: browserUrl === undefined ? undefined : { url: browserUrl, key: browserKey! },
    allow: outboundAllowList(env),
    protect: protectedEndpointsFromEnv(env),
  };
}
