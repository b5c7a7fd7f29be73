// The SearXNG backend: its JSON API, `GET <base>/search?q=…&format=json`. The answer is
// `{query, number_of_results, results: [{url, title, content, engine, engines, score, …}], answers, suggestions,
// unresponsive_engines: [[engine, reason], …]}`. SearXNG answers 403 when `json` is not in `search.formats` of its
// settings.yml, and 429 when its limiter (bot protection) stops a client.
import { WebSearchError } from './errors';
import { absoluteHttpUrl } from './urls';
import type { SearchResult } from './search-types';

export const SEARXNG = 'searxng';

export function searxngRequest(baseUrl: string, query: string): { url: string; init: RequestInit } {
  const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  url.searchParams.set('pageno', '1');
  return { url: url.href, init: { method: 'GET', headers: { accept: 'application/json' } } };
}

/** Why SearXNG gave no answer to read, from its status; undefined for 200. */
export function searxngRefusal(status: number): string | undefined {
  if (status === 200) return undefined;
  if (status === 429) {
    return 'SearXNG is rate-limiting this client (HTTP 429, its limiter); wait a minute and search again, or exempt this server in its limiter settings';
  }
  if (status === 403) {
    return 'SearXNG refused the JSON API (HTTP 403); add "json" to search.formats in its settings.yml';
  }
  return `SearXNG answered HTTP ${status} instead of results; check that ASSISTANT_SEARXNG_URL points at a running SearXNG`;
}

interface SearxngAnswer {
  results?: unknown;
  unresponsive_engines?: unknown;
}

/** The results of a SearXNG JSON answer; no results because every engine failed is an error naming them. */
export function parseSearxngJson(text: string, baseUrl: string): SearchResult[] {
  let answer: SearxngAnswer;
  try {
    answer = JSON.parse(text) as SearxngAnswer;
  } catch {
    throw new WebSearchError(SEARXNG, 'SearXNG answered something that is not JSON; is ASSISTANT_SEARXNG_URL right?');
  }
  if (!answer || typeof answer !== 'object' || !Array.isArray(answer.results)) {
    throw new WebSearchError(SEARXNG, 'SearXNG answered JSON without a "results" list');
  }
  const results: SearchResult[] = [];
  for (const entry of answer.results as Array<Record<string, unknown>>) {
    if (!entry || typeof entry !== 'object') continue;
    const url = absoluteHttpUrl(typeof entry.url === 'string' ? entry.url : undefined, baseUrl);
    if (!url) continue;
    const engines = Array.isArray(entry.engines) ? entry.engines.filter((e) => typeof e === 'string') : [];
    const engine = typeof entry.engine === 'string' ? entry.engine : (engines[0] as string | undefined);
    results.push({
      title: plain(entry.title) || url,
      url,
      snippet: plain(entry.content),
      engine: engine ? `searxng/${engine}` : SEARXNG,
    });
  }
  const failed = Array.isArray(answer.unresponsive_engines) ? answer.unresponsive_engines : [];
  if (results.length === 0 && failed.length > 0) {
    const names = failed
      .map((pair) => (Array.isArray(pair) ? `${String(pair[0])} (${String(pair[1] ?? 'no reason')})` : String(pair)))
      .join(', ');
    throw new WebSearchError(
      SEARXNG,
      `SearXNG found nothing because its engines did not answer: ${names}; try again in a few minutes`,
    );
  }
  return results;
}

const plain = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');
