// The keyless search backend: DuckDuckGo's no-JavaScript HTML endpoint (https://html.duckduckgo.com/html/), the form
// a browser without JavaScript posts, parsed with a real HTML parser (linkedom). Its markup: each result is a
// `div.result` (ads are `div.result--ad`) with `a.result__a` (title; the href is the page or DuckDuckGo's
// `//duckduckgo.com/l/?uddg=<page>` redirect) and `.result__snippet`. Its bot check answers HTTP 202 with an
// "anomaly" page (`anomaly-modal`, `form#challenge-form`) instead of results.
import { parseHTML } from 'linkedom';

import { WebSearchError } from './errors';
import { absoluteHttpUrl } from './urls';
import type { SearchResult } from './search-types';

export const DUCKDUCKGO = 'duckduckgo';

/** A desktop browser's User-Agent: DuckDuckGo answers scripts' default agents with its bot check. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The request DuckDuckGo's HTML form sends for a first page of results (all regions). */
export function duckDuckGoRequest(baseUrl: string, query: string): { url: string; init: RequestInit } {
  const body = new URLSearchParams({ q: query, b: '', kl: 'wt-wt' }).toString();
  return {
    url: baseUrl,
    init: {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html,application/xhtml+xml',
        'accept-language': 'en-US,en;q=0.8',
        'user-agent': BROWSER_USER_AGENT,
        referer: new URL('/', baseUrl).href,
      },
    },
  };
}

const BOT_CHECK = /anomaly-modal|id=["']?challenge-form|bots use DuckDuckGo/i;

/** Why DuckDuckGo gave no results, from its status and page; undefined when it answered a result page. */
export function duckDuckGoRefusal(status: number, html: string): string | undefined {
  const retry = 'wait a few minutes before searching again, or use SearXNG (ASSISTANT_SEARCH_BACKEND=searxng)';
  if (BOT_CHECK.test(html) || status === 202) {
    return `DuckDuckGo refused the search with its bot check (HTTP ${status}, "anomaly" page); ${retry}`;
  }
  if (status === 429 || status === 403) {
    return `DuckDuckGo is rate-limiting this server (HTTP ${status}); ${retry}`;
  }
  if (status !== 200) return `DuckDuckGo answered HTTP ${status} instead of results; try again later`;
  return undefined;
}

/** The results of a DuckDuckGo HTML page, in order, without ads. A page it does not recognise is an error. */
export function parseDuckDuckGoHtml(html: string, baseUrl: string): SearchResult[] {
  const { document } = parseHTML(html);
  const results: SearchResult[] = [];
  const links = [...document.querySelectorAll('a.result__a')];
  if (links.length === 0) {
    if (document.querySelector('.no-results, #links') !== null) return [];
    throw new WebSearchError(DUCKDUCKGO, 'DuckDuckGo answered a page without results that could not be read');
  }
  for (const link of links) {
    const block = link.closest('.result');
    if (block?.classList.contains('result--ad')) continue;
    const url = resultUrl(link.getAttribute('href'), baseUrl);
    if (!url) continue;
    const snippet = block?.querySelector('.result__snippet')?.textContent ?? '';
    results.push({ title: clean(link.textContent), url, snippet: clean(snippet), engine: DUCKDUCKGO });
  }
  return results;
}

/** The page a result links to: DuckDuckGo's `/l/?uddg=<page>` redirect unwrapped; ads (`/y.js`) dropped. */
function resultUrl(href: string | null, baseUrl: string): string | undefined {
  const absolute = absoluteHttpUrl(href, baseUrl);
  if (!absolute) return undefined;
  const url = new URL(absolute);
  if (/(^|\.)duckduckgo\.com$/.test(url.hostname) || url.href.startsWith(new URL('/', baseUrl).href)) {
    if (url.pathname === '/y.js') return undefined;
    const target = url.searchParams.get('uddg');
    if (url.pathname === '/l/' && target) return absoluteHttpUrl(target, baseUrl);
  }
  return absolute;
}

const clean = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();
