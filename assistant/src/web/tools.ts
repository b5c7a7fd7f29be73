// The web tools built from their settings: web_search (its own guard, with the engine on the allow list) and
// read_page (the outbound guard as configured, and the browser service when one is set).
import { createBrowserClient } from '../browser/client';
import { createOutboundGuard, type OutboundGuard, type OutboundLookup } from '../outbound';
import { createPageReader, type PageReader } from './read-page';
import { createWebSearch } from './search';
import type { WebSearch } from './search-types';
import { DEFAULT_DUCKDUCKGO_URL, webSettingsFromEnv, type SearchBackendName, type WebSettings } from './settings';
import { AssistantInputError } from '../errors';

export interface WebTools {
  settings: WebSettings;
  /** The outbound guard every fetch but the search engine's goes through (read_page, checks). */
  guard: OutboundGuard;
  /** web_search on the environment's engine. */
  search: WebSearch;
  /** web_search on the engine of the stored settings (searchBackend, searxngUrl), or the environment's. */
  searchWith(stored: StoredSearchSettings): WebSearch;
  reader: PageReader;
}

/** The instance settings that choose the engine (null: the environment's). */
export interface StoredSearchSettings {
  searchBackend: SearchBackendName | null;
  searxngUrl: string | null;
}

export function createWebTools(settings: WebSettings, options: { lookup?: OutboundLookup } = {}): WebTools {
  const outbound = { allow: settings.allow, protect: settings.protect, lookup: options.lookup };
  const guard = createOutboundGuard({ ...outbound, maxRedirects: settings.read.maxRedirects });
  const search = createWebSearch({ ...settings.search, outbound });
  const engines = new Map<string, WebSearch>();
  const searchWith = (stored: StoredSearchSettings): WebSearch => {
    const backend = stored.searchBackend ?? settings.search.backend;
    const baseUrl =
      backend === 'searxng'
        ? (stored.searxngUrl ?? (settings.search.backend === 'searxng' ? settings.search.baseUrl : undefined))
        : backend === settings.search.backend
          ? settings.search.baseUrl
          : DEFAULT_DUCKDUCKGO_URL;
    if (baseUrl === undefined) {
      throw new AssistantInputError(
        'searxngUrl',
        'SearXNG is the chosen engine but its URL is not set: store searxngUrl (or set ASSISTANT_SEARXNG_URL)',
      );
    }
    if (backend === settings.search.backend && baseUrl === settings.search.baseUrl) return search;
    const key = `${backend} ${baseUrl}`;
    let engine = engines.get(key);
    if (!engine) {
      engine = createWebSearch({ backend, baseUrl, timeoutMs: settings.search.timeoutMs, outbound });
      engines.set(key, engine);
    }
    return engine;
  };
  return {
    settings,
    guard,
    search,
    searchWith,
    reader: createPageReader({
      guard,
      browser: settings.browser ? createBrowserClient(settings.browser) : undefined,
      maxBytes: settings.read.maxBytes,
      timeoutMs: settings.read.timeoutMs,
      cacheTtlMs: settings.read.cacheTtlMs,
    }),
  };
}

/** The web tools from the environment (see docs/WEB.md for the variables). */
export function webToolsFromEnv(env: NodeJS.ProcessEnv = process.env): WebTools {
  return createWebTools(webSettingsFromEnv(env));
}
