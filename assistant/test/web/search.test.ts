// web_search against loopback fakes that answer in the engines' real formats: DuckDuckGo's no-JavaScript HTML page
// (a POSTed form; `div.result` blocks with `a.result__a` and `a.result__snippet`, `/l/?uddg=` redirect links, ads;
// its HTTP 202 "anomaly" bot check) and SearXNG's JSON API (`results`, `unresponsive_engines`; 403 without the json
// format, 429 from its limiter). Only loopback traffic; the engines' hosts are allowed as configured engines.
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AssistantInputError } from '../../src/errors';
import { createWebSearch, WebSearchError, type WebSearchOptions } from '../../src/web';
import { startSite, type FakeSite, type Handler } from './fake-site';

const result = (href: string, title: string, snippet: string, extra = '') => `
  <div class="result results_links results_links_deep web-result ${extra}">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="${href}">${title}</a>
      </h2>
      <div class="result__extras"><div class="result__extras__url">
        <a class="result__url" href="${href}">${new URL(href, 'https://x').hostname}</a>
      </div></div>
      <a class="result__snippet" href="${href}">${snippet}</a>
      <div class="clear"></div>
    </div>
  </div>`;

const uddg = (url: string) => `//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}&amp;rut=5c1f0e2b`;

/** A DuckDuckGo HTML result page as html.duckduckgo.com serves it (trimmed: no header, styles or paging form). */
const DDG_PAGE = `<!DOCTYPE html>
<html><head><meta charset="UTF-8"><title>elbe river at DuckDuckGo</title></head>
<body class="body--html">
<div id="links" class="results">
  ${result('https://duckduckgo.com/y.js?ad_domain=cruises.example&amp;u3=x', 'Elbe cruises – book now', 'Ad: cheap river cruises', 'result--ad result--ad--small')}
  ${result(uddg('https://en.wikipedia.org/wiki/Elbe'), 'Elbe - <b>Wikipedia</b>', 'The <b>Elbe</b> is one of the major rivers of Central Europe.')}
  ${result('https://www.britannica.com/place/Elbe-River', 'Elbe River | Britannica', 'Elbe River, major waterway of central Europe.')}
  ${result(uddg('https://en.wikipedia.org/wiki/Elbe?utm_source=ddg#History'), 'Elbe (duplicate)', 'The same page again.')}
  ${result(uddg('https://www.elbe-radweg.de/'), 'Elbe Cycle Route', 'Cycling along the <b>Elbe</b> from Prague to Cuxhaven.')}
</div>
<form action="/html/" method="post"><input type="hidden" name="vqd" value="4-123456789"></form>
</body></html>`;

/** DuckDuckGo's bot check: HTTP 202 with the anomaly modal and challenge form instead of results. */
const DDG_ANOMALY = `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body>
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal">
  <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
  <div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
  <form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=sre" method="POST"></form>
</div></div></body></html>`;

const DDG_NO_RESULTS = `<!DOCTYPE html><html><body><div id="links" class="results">
  <div class="no-results">No results.</div></div></body></html>`;

/** A SearXNG JSON answer, as /search?format=json gives it. */
const SEARXNG_ANSWER = {
  query: 'elbe river',
  number_of_results: 0,
  results: [
    {
      url: 'https://en.wikipedia.org/wiki/Elbe',
      title: 'Elbe - Wikipedia',
      content: 'The Elbe is one of the major rivers of Central Europe.',
      engine: 'wikipedia',
      parsed_url: ['https', 'en.wikipedia.org', '/wiki/Elbe', '', '', ''],
      template: 'default.html',
      engines: ['wikipedia', 'brave'],
      positions: [1, 2],
      score: 4.5,
      category: 'general',
      publishedDate: null,
    },
    {
      url: 'http://www.en.wikipedia.org/wiki/Elbe/',
      title: 'Elbe (again, by another engine)',
      content: 'duplicate',
      engine: 'brave',
      engines: ['brave'],
      positions: [3],
      score: 1,
      category: 'general',
    },
    {
      url: 'https://www.britannica.com/place/Elbe-River',
      title: 'Elbe River | Britannica',
      content: 'Elbe River, major waterway of central Europe.',
      engine: 'brave',
      engines: ['brave'],
      positions: [2],
      score: 2,
      category: 'general',
    },
    { url: 'javascript:alert(1)', title: 'not a page', content: '', engine: 'bad' },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ['elbe river map'],
  unresponsive_engines: [['duckduckgo', 'CAPTCHA']],
};

interface Seen {
  method: string;
  path: string;
  body: string;
  userAgent: string | undefined;
}

/** An engine fake whose answer the test sets; it records what it was asked. */
async function startEngine(path: string) {
  const seen: Seen[] = [];
  let answer: Handler = (_request, response) => response.end();
  const site = await startSite({
    [path]: (request: http.IncomingMessage, response: http.ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          path: request.url ?? '',
          body,
          userAgent: request.headers['user-agent'],
        });
        answer(request, response);
      });
    },
  });
  return { site, seen, answer: (handler: Handler) => (answer = handler) };
}

const send =
  (status: number, type: string, body: string): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  };

describe('web search with DuckDuckGo (HTML endpoint)', () => {
  let ddg: Awaited<ReturnType<typeof startEngine>>;
  let options: WebSearchOptions;
  beforeAll(async () => {
    ddg = await startEngine('/html/');
    options = { backend: 'duckduckgo', baseUrl: `${ddg.site.url}/html/`, outbound: { protect: [] } };
  });
  afterAll(() => ddg.site.close());

  it('posts the form a browser posts and returns the results without ads, de-duplicated', async () => {
    ddg.answer(send(200, 'text/html; charset=UTF-8', DDG_PAGE));
    const answer = await createWebSearch(options).search({ query: '  elbe   river ' });
    expect(answer).toEqual({
      query: 'elbe river',
      backend: 'duckduckgo',
      count: 3,
      results: [
        {
          title: 'Elbe - Wikipedia',
          url: 'https://en.wikipedia.org/wiki/Elbe',
          snippet: 'The Elbe is one of the major rivers of Central Europe.',
          engine: 'duckduckgo',
        },
        {
          title: 'Elbe River | Britannica',
          url: 'https://www.britannica.com/place/Elbe-River',
          snippet: 'Elbe River, major waterway of central Europe.',
          engine: 'duckduckgo',
        },
        {
          title: 'Elbe Cycle Route',
          url: 'https://www.elbe-radweg.de/',
          snippet: 'Cycling along the Elbe from Prague to Cuxhaven.',
          engine: 'duckduckgo',
        },
      ],
    });
    const request = ddg.seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(new URLSearchParams(request.body).get('q')).toBe('elbe river');
    expect(request.userAgent).toMatch(/^Mozilla\/5\.0/);
  });

  it('cuts the results to maxResults', async () => {
    ddg.answer(send(200, 'text/html', DDG_PAGE));
    const answer = await createWebSearch(options).search({ query: 'elbe', maxResults: 2 });
    expect(answer.results.map((r) => r.url)).toEqual([
      'https://en.wikipedia.org/wiki/Elbe',
      'https://www.britannica.com/place/Elbe-River',
    ]);
  });

  it('answers an empty list for a page that says there are no results', async () => {
    ddg.answer(send(200, 'text/html', DDG_NO_RESULTS));
    expect((await createWebSearch(options).search({ query: 'qwxzv' })).results).toEqual([]);
  });

  it('explains the bot check (HTTP 202, anomaly page) instead of returning no results', async () => {
    ddg.answer(send(202, 'text/html', DDG_ANOMALY));
    const error = await createWebSearch(options)
      .search({ query: 'elbe' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSearchError);
    expect((error as Error).message).toMatch(/^DuckDuckGo refused the search with its bot check \(HTTP 202/);
    expect((error as Error).message).toMatch(/ASSISTANT_SEARCH_BACKEND=searxng/);
  });

  it('explains rate limiting (HTTP 429) and a page it cannot read', async () => {
    ddg.answer(send(429, 'text/html', 'Too Many Requests'));
    await expect(createWebSearch(options).search({ query: 'elbe' })).rejects.toThrow(
      /^DuckDuckGo is rate-limiting this server \(HTTP 429\)/,
    );
    ddg.answer(send(200, 'text/html', '<html><body><p>Something else entirely</p></body></html>'));
    await expect(createWebSearch(options).search({ query: 'elbe' })).rejects.toThrow(
      'DuckDuckGo answered a page without results that could not be read',
    );
  });

  it('gives up after its time limit with a clear message', async () => {
    ddg.answer(() => undefined); // never answers
    const error = await createWebSearch({ ...options, timeoutMs: 300 })
      .search({ query: 'elbe' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSearchError);
    expect((error as Error).message).toBe('DuckDuckGo did not answer within 0.3 s; try again');
  });

  it('refuses bad input naming the field', async () => {
    const search = createWebSearch(options);
    for (const [input, field] of [
      [{ query: '' }, 'query'],
      [{ query: 42 }, 'query'],
      [{ query: 'x'.repeat(401) }, 'query'],
      [{ query: 'elbe', maxResults: 0 }, 'maxResults'],
      [{ query: 'elbe', maxResults: 26 }, 'maxResults'],
      [{ query: 'elbe', maxResults: 2.5 }, 'maxResults'],
    ] as const) {
      const error = await search.search(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AssistantInputError);
      expect((error as AssistantInputError).field).toBe(field);
    }
  });
});

describe('web search with SearXNG (JSON API)', () => {
  let searxng: Awaited<ReturnType<typeof startEngine>>;
  let options: WebSearchOptions;
  beforeAll(async () => {
    searxng = await startEngine('/search');
    options = { backend: 'searxng', baseUrl: searxng.site.url, outbound: { protect: [] } };
  });
  afterAll(() => searxng.site.close());

  it('asks for the JSON format and returns the results with their engines, de-duplicated', async () => {
    searxng.answer(send(200, 'application/json', JSON.stringify(SEARXNG_ANSWER)));
    const answer = await createWebSearch(options).search({ query: 'elbe river', maxResults: 10 });
    expect(answer).toEqual({
      query: 'elbe river',
      backend: 'searxng',
      count: 2,
      results: [
        {
          title: 'Elbe - Wikipedia',
          url: 'https://en.wikipedia.org/wiki/Elbe',
          snippet: 'The Elbe is one of the major rivers of Central Europe.',
          engine: 'searxng/wikipedia',
        },
        {
          title: 'Elbe River | Britannica',
          url: 'https://www.britannica.com/place/Elbe-River',
          snippet: 'Elbe River, major waterway of central Europe.',
          engine: 'searxng/brave',
        },
      ],
    });
    const asked = new URL(searxng.seen.at(-1)!.path, 'http://x');
    expect(searxng.seen.at(-1)!.method).toBe('GET');
    expect(asked.searchParams.get('q')).toBe('elbe river');
    expect(asked.searchParams.get('format')).toBe('json');
  });

  it('explains its limiter (HTTP 429) and a missing json format (HTTP 403)', async () => {
    searxng.answer(send(429, 'text/plain', 'Too Many Requests'));
    await expect(createWebSearch(options).search({ query: 'elbe' })).rejects.toThrow(
      /^SearXNG is rate-limiting this client \(HTTP 429, its limiter\)/,
    );
    searxng.answer(send(403, 'text/html', '<h1>Forbidden</h1>'));
    await expect(createWebSearch(options).search({ query: 'elbe' })).rejects.toThrow(
      'SearXNG refused the JSON API (HTTP 403); add "json" to search.formats in its settings.yml',
    );
  });

  it('names the engines that failed when there are no results because of them', async () => {
    const failed = {
      ...SEARXNG_ANSWER,
      results: [],
      unresponsive_engines: [
        ['brave', 'too many requests'],
        ['duckduckgo', 'CAPTCHA'],
      ],
    };
    searxng.answer(send(200, 'application/json', JSON.stringify(failed)));
    await expect(createWebSearch(options).search({ query: 'elbe' })).rejects.toThrow(
      'SearXNG found nothing because its engines did not answer: brave (too many requests), duckduckgo (CAPTCHA); try again in a few minutes',
    );
  });

  it('says when the engine cannot be reached', async () => {
    const closed = await startSite({});
    const baseUrl = closed.url;
    await closed.close();
    const error = await createWebSearch({ ...options, baseUrl })
      .search({ query: 'elbe' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSearchError);
    expect((error as Error).message).toMatch(
      new RegExp(`^SearXNG could not be reached at ${baseUrl}: could not fetch .*ECONNREFUSED`),
    );
  });
});

describe('the search engine and the outbound guard', () => {
  let engine: FakeSite;
  beforeAll(async () => {
    engine = await startSite({ '/search': send(200, 'application/json', JSON.stringify(SEARXNG_ANSWER)) });
  });
  afterAll(() => engine.close());

  it('reaches the configured engine on loopback without it being on ASSISTANT_OUTBOUND_ALLOW', async () => {
    const search = createWebSearch({ backend: 'searxng', baseUrl: engine.url, outbound: { allow: [], protect: [] } });
    expect((await search.search({ query: 'elbe' })).count).toBe(2);
  });

  it('never reaches a protected endpoint, even when it is the configured engine', async () => {
    const search = createWebSearch({
      backend: 'searxng',
      baseUrl: engine.url,
      outbound: { protect: [{ host: '127.0.0.1', port: engine.port, name: 'the judge' }] },
    });
    const before = engine.requests.length;
    await expect(search.search({ query: 'elbe' })).rejects.toThrow(
      `the SearXNG URL is refused by the outbound guard: 127.0.0.1:${engine.port} is the judge, which can never be reached from here`,
    );
    expect(engine.requests.length).toBe(before);
  });
});
