// What a web search answers, shared by the search (search.ts) and its engines (duckduckgo.ts, searxng.ts).
import type { SearchBackendName } from './settings';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** Which engine found it: `duckduckgo`, or `searxng/<engine>` (e.g. `searxng/brave`). */
  engine: string;
}

export interface WebSearchInput {
  query: unknown;
  maxResults?: unknown;
}

export interface WebSearchAnswer {
  query: string;
  backend: SearchBackendName;
  count: number;
  results: SearchResult[];
}

export interface WebSearch {
  search(input: WebSearchInput): Promise<WebSearchAnswer>;
}
