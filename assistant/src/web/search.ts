// web_search: one query to the configured engine (SearXNG's JSON API, or DuckDuckGo's HTML endpoint with no key),
// through the outbound guard, with a time limit; results de-duplicated by URL and cut to maxResults.
//
// The engine's base URL is operator configuration, not user input: its `host:port` is added to the allow list of the
// guard used for searching only (so a SearXNG on the internal network or loopback works without widening
// ASSISTANT_OUTBOUND_ALLOW for read_page). Everything else the guard does still applies: protected endpoints and cloud
// metadata addresses stay refused, and every redirect the engine answers is checked like any other URL.
import { AssistantInputError, FieldError } from '../errors';
import { OutboundRefusedError, createOutboundGuard, type OutboundGuard, type OutboundGuardOptions } from '../outbound';
import { formatHostPort, normaliseHost } from '../outbound/addresses';
import { readBodyWithLimit } from '../outbound/body';
import { DUCKDUCKGO, duckDuckGoRefusal, duckDuckGoRequest, parseDuckDuckGoHtml } from './duckduckgo';
import { WebSearchError } from './errors';
import { SEARXNG, parseSearxngJson, searxngRefusal, searxngRequest } from './searxng';
import type { SearchBackendName } from './settings';
import type { SearchResult, WebSearch, WebSearchAnswer, WebSearchInput } from './search-types';
import { urlKey } from './urls';

export interface WebSearchOptions {
  backend: SearchBackendName;
  /** SearXNG's base URL, or DuckDuckGo's HTML endpoint (a loopback fake in tests). */
  baseUrl: string;
  /** The whole search (connect, answer, body) must finish within this; 10 s by default. */
  timeoutMs?: number;
  /** The outbound guard's options; the engine's own host:port is added to `allow` (see above). */
  outbound: OutboundGuardOptions;
}

export const DEFAULT_MAX_RESULTS = 8;
export const MAX_RESULTS_LIMIT = 25;
/** DuckDuckGo refuses queries of 500 characters or more; SearXNG's engines have similar limits. */
export const MAX_QUERY_CHARS = 400;
/** Search answers are small; anything bigger is not a result page. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const ENGINE_NAMES: Record<SearchBackendName, string> = { duckduckgo: 'DuckDuckGo', searxng: 'SearXNG' };

export function createWebSearch(options: WebSearchOptions): WebSearch {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new AssistantInputError('baseUrl', `"${options.baseUrl}" is not an absolute URL of the search engine`);
  }
  const enginePort = Number(base.port) || (base.protocol === 'https:' ? 443 : 80);
  const engineEntry = formatHostPort({ host: normaliseHost(base.hostname), port: enginePort });
  const guard = createOutboundGuard({ ...options.outbound, allow: [...(options.outbound.allow ?? []), engineEntry] });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const name = ENGINE_NAMES[options.backend];

  return {
    async search(input: WebSearchInput): Promise<WebSearchAnswer> {
      const query = checkQuery(input?.query);
      const maxResults = checkMaxResults(input?.maxResults);
      const signal = AbortSignal.timeout(timeoutMs);
      let found: SearchResult[];
      try {
        found = await ask(guard, options.backend, options.baseUrl, query, signal);
      } catch (error) {
        if (error instanceof WebSearchError) throw error;
        if (signal.aborted) {
          throw new WebSearchError(options.backend, `${name} did not answer within ${timeoutMs / 1000} s; try again`);
        }
        if (error instanceof OutboundRefusedError) {
          throw new WebSearchError(
            options.backend,
            `the ${name} URL is refused by the outbound guard: ${error.reason}`,
          );
        }
        const why = error instanceof FieldError ? error.reason : (error as Error).message;
        throw new WebSearchError(options.backend, `${name} could not be reached at ${options.baseUrl}: ${why}`);
      }
      const results = dedupe(found).slice(0, maxResults);
      return { query, backend: options.backend, count: results.length, results };
    },
  };
}

async function ask(
  guard: OutboundGuard,
  backend: SearchBackendName,
  baseUrl: string,
  query: string,
  signal: AbortSignal,
): Promise<SearchResult[]> {
  const request = backend === 'searxng' ? searxngRequest(baseUrl, query) : duckDuckGoRequest(baseUrl, query);
  const response = await guard.fetch(request.url, { ...request.init, signal });
  const body = (await readBodyWithLimit(response, MAX_ANSWER_BYTES)).toString('utf8');
  if (backend === 'searxng') {
    const refusal = searxngRefusal(response.status);
    if (refusal) throw new WebSearchError(SEARXNG, refusal);
    return parseSearxngJson(body, response.url || baseUrl);
  }
  const refusal = duckDuckGoRefusal(response.status, body);
  if (refusal) throw new WebSearchError(DUCKDUCKGO, refusal);
  return parseDuckDuckGoHtml(body, response.url || baseUrl);
}

/** The first result for each page (see urlKey), in the engine's order. */
function dedupe(results: SearchResult[]): SearchResult[] {
  const seen = new Set<string>();
  return results.filter((result) => {
    const key = urlKey(result.url);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new AssistantInputError('query', 'is required: the words to search for');
  }
  const trimmed = query.replace(/\s+/g, ' ').trim();
  if (trimmed.length > MAX_QUERY_CHARS) {
    throw new AssistantInputError('query', `is ${trimmed.length} characters long; at most ${MAX_QUERY_CHARS}`);
  }
  return trimmed;
}

function checkMaxResults(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_MAX_RESULTS;
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > MAX_RESULTS_LIMIT) {
    throw new AssistantInputError(
      'maxResults',
      `must be a whole number from 1 to ${MAX_RESULTS_LIMIT}, not ${JSON.stringify(value)}`,
    );
  }
  return number;
}
