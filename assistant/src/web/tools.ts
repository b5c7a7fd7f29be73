// The web tools built from their settings: web_search (its own guard, with the engine on the allow list) and
// read_page (the outbound guard as configured, and the browser service when one is set).
import { createBrowserClient } from '../browser/client';
import { createOutboundGuard, type OutboundGuard, type OutboundLookup } from '../outbound';
import { createPageReader, type PageReader } from './read-page';
import { createWebSearch, type WebSearch } from './search';
import { webSettingsFromEnv, type WebSettings } from './settings';

export interface WebTools {
  settings: WebSettings;
  /** The outbound guard every fetch but the search engine's goes through (read_page, checks). */
  guard: OutboundGuard;
  search: WebSearch;
  reader: PageReader;
}

export function createWebTools(settings: WebSettings, options: { lookup?: OutboundLookup } = {}): WebTools {
  const outbound = { allow: settings.allow, protect: settings.protect, lookup: options.lookup };
  const guard = createOutboundGuard({ ...outbound, maxRedirects: settings.read.maxRedirects });
  return {
    settings,
    guard,
    search: createWebSearch({ ...settings.search, outbound }),
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
