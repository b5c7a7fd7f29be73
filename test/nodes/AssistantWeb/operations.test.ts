// The Assistant Web node's operations through the shared fake IExecuteFunctions, with its settings in the
// environment as n8n would have them: a fake DuckDuckGo (its real HTML format) and a fake site on loopback, allowed
// through ASSISTANT_OUTBOUND_ALLOW; n8n's own port stays refused. Errors name the field and the item.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { AssistantWeb } from '../../../nodes/AssistantWeb/AssistantWeb.node';
import { webTools } from '../../../nodes/shared/transport/webTools';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { ARTICLE_HTML, html, startSite, type FakeSite } from '../../../assistant/test/web/fake-site';
import { updateInstanceSettings } from 'assistant-core';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const SEARXNG_JSON = JSON.stringify({
  query: 'elbe',
  results: [{ url: 'https://elbe.example/', title: 'The Elbe', content: 'A river.', engine: 'wikipedia' }],
  unresponsive_engines: [],
});

const DDG_PAGE = `<!DOCTYPE html><html><body><div id="links" class="results">
  <div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a"
      href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FElbe&amp;rut=1">Elbe - Wikipedia</a></h2>
    <a class="result__snippet" href="#">The <b>Elbe</b> is a river in Central Europe.</a>
  </div></div>
</div></body></html>`;

let site: FakeSite;
let n8n: FakeSite;
let searxng: FakeSite;
let db: NodeDatabase;
const saved = { ...process.env };

beforeAll(async () => {
  site = await startSite({
    '/html/': html(DDG_PAGE),
    '/article': html(ARTICLE_HTML),
  });
  n8n = await startSite({ '/rest/workflows': html('{}') });
  searxng = await startSite({
    '/search': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(SEARXNG_JSON);
    },
  });
  db = await startNodeDatabase({ migrated: true });
});
afterAll(async () => {
  await site?.close();
  await n8n?.close();
  await searxng?.close();
  await db?.stop();
});
afterEach(() => {
  process.env = { ...saved };
});

/** The environment n8n would run with, for these fakes. */
function useEnv(extra: Record<string, string> = {}) {
  process.env = {
    ...saved,
    ASSISTANT_SEARCH_BACKEND: 'duckduckgo',
    ASSISTANT_DUCKDUCKGO_URL: `${site.url}/html/`,
    ASSISTANT_OUTBOUND_ALLOW: `${site.hostPort} ${n8n.hostPort}`,
    N8N_PORT: String(n8n.port),
    ...extra,
  };
}

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantWeb(), { parameters, ...options });
  return output;
}

describe('Assistant Web description', () => {
  it('is a tool, every operation with an action; Search may have the database (for the stored engine)', () => {
    const { description } = nodeVersion(new AssistantWeb());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([
      { name: 'postgres', required: false, displayOptions: { show: { operation: ['search'] } } },
    ]);
    expect(description.icon).toBe('file:assistantWeb.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('Assistant Web search on the stored engine', () => {
  const withDatabase = (parameters: Parameters[]) =>
    runNode(new AssistantWeb(), {
      parameters,
      credentials: { postgres: db.credential },
      nodeCredentials: { postgres: { id: 'asstPostgresDb01', name: 'Assistant Postgres' } },
    });

  it("asks the engine the stored settings choose, and the environment's again once set back to default", async () => {
    useEnv();
    await updateInstanceSettings(db.pool, { searchBackend: 'searxng', searxngUrl: searxng.url });
    try {
      const [[stored]] = await withDatabase([{ operation: 'search', query: 'elbe', maxResults: 5 }]);
      expect(stored.json).toMatchObject({ backend: 'searxng', results: [{ url: 'https://elbe.example/' }] });
      await updateInstanceSettings(db.pool, { searchBackend: 'default' });
      const [[fromEnv]] = await withDatabase([{ operation: 'search', query: 'elbe', maxResults: 5 }]);
      expect(fromEnv.json).toMatchObject({ backend: 'duckduckgo' });
    } finally {
      await updateInstanceSettings(db.pool, { searchBackend: 'default', searxngUrl: 'default' });
    }
  });

  it('names searxngUrl when SearXNG is chosen with no URL anywhere', async () => {
    useEnv();
    await updateInstanceSettings(db.pool, { searchBackend: 'searxng', searxngUrl: 'default' });
    try {
      const error = await withDatabase([{ operation: 'search', query: 'elbe', maxResults: 5 }]).catch((e) => e);
      expect(error).toBeInstanceOf(NodeOperationError);
      expect((error as Error).message).toMatch(/^searxngUrl: SearXNG is the chosen engine but its URL is not set/);
    } finally {
      await updateInstanceSettings(db.pool, { searchBackend: 'default' });
    }
  });
});

describe('Assistant Web operations', () => {
  it('searches through the configured engine', async () => {
    useEnv();
    const [item] = await run([{ operation: 'search', query: 'elbe', maxResults: 5 }]);
    expect(item.pairedItem).toEqual({ item: 0 });
    expect(item.json).toEqual({
      query: 'elbe',
      backend: 'duckduckgo',
      count: 1,
      results: [
        {
          // What the site says of itself is marked as outside data, one id for the whole answer.
          title: expect.stringMatching(/^«untrusted ([0-9a-f]{8}) from a search result»\nElbe - Wikipedia\n«end \1»$/),
          url: 'https://en.wikipedia.org/wiki/Elbe',
          snippet: expect.stringMatching(
            /^«untrusted ([0-9a-f]{8}) from a search result»\nThe Elbe is a river in Central Europe\.\n«end \1»$/,
          ),
          engine: 'duckduckgo',
        },
      ],
    });
  });

  it('reads a page per item, and keeps the page cache between runs', async () => {
    useEnv();
    const before = site.hits('/article');
    const [first, second] = await run([
      { operation: 'readPage', url: `${site.url}/article`, maxChars: 20000, render: false },
      { operation: 'readPage', url: `${site.url}/article`, maxChars: 300, render: false },
    ]);
    expect(first.json).toMatchObject({ title: 'The Elbe, a river of trade', cached: false, truncated: false });
    expect(second.json).toMatchObject({ cached: true, truncated: true });
    expect(second.pairedItem).toEqual({ item: 1 });
    const [again] = await run([{ operation: 'readPage', url: `${site.url}/article` }]);
    expect(again.json.cached).toBe(true);
    expect(site.hits('/article')).toBe(before + 1);
  });

  it("refuses n8n's own API even with its port allowed, naming the url field and the item", async () => {
    useEnv();
    const error = await run([{ operation: 'readPage', url: `http://localhost:${n8n.port}/rest/workflows` }]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe(
      `url: localhost:${n8n.port} is the n8n instance's own API, which can never be reached from here`,
    );
    expect((error as NodeOperationError).description).toBe('Check the "url" parameter.');
    expect(n8n.requests).toEqual([]);
  });

  it('Check URL passes an allowed URL on with the item, and refuses the rest naming the reason', async () => {
    useEnv();
    const fetched = site.requests.length;
    const output = await runNode(new AssistantWeb(), {
      parameters: [
        { operation: 'checkUrl', url: `${site.url}/article?q=a b` },
        { operation: 'checkUrl', url: 'http://10.1.2.3/weather' },
        { operation: 'checkUrl', url: `http://localhost:${n8n.port}/rest/workflows` },
      ],
      items: [{ json: { city: 'Paris' } }, { json: {} }, { json: {} }],
      continueOnFail: true,
    });
    expect(output[0][0].json).toEqual({ city: 'Paris', url: `${site.url}/article?q=a%20b` });
    expect(output[0][1].json).toMatchObject({ field: 'url', error: expect.stringMatching(/^url: .*10\.1\.2\.3/) });
    expect(output[0][2].json).toMatchObject({ field: 'url', error: expect.stringMatching(/n8n instance's own API/) });
    // Checking fetches nothing.
    expect(site.requests.length).toBe(fetched);
  });

  it('with Continue On Fail, reports bad input per item and carries on', async () => {
    useEnv();
    const output = await run(
      [
        { operation: 'search', query: '' },
        { operation: 'search', query: 'elbe', maxResults: 99 },
        { operation: 'search', query: 'elbe' },
      ],
      { continueOnFail: true },
    );
    expect(output.map((item) => item.json.field)).toEqual(['query', 'maxResults', undefined]);
    expect(output[2].json.count).toBe(1);
  });

  it('fails every item naming the variable when a setting is bad', async () => {
    useEnv({ ASSISTANT_SEARCH_BACKEND: 'altavista' });
    const output = await run(
      [
        { operation: 'search', query: 'a' },
        { operation: 'search', query: 'b' },
      ],
      { continueOnFail: true },
    );
    expect(output.map((item) => item.json.field)).toEqual(['ASSISTANT_SEARCH_BACKEND', 'ASSISTANT_SEARCH_BACKEND']);
  });

  it('builds the tools anew only when a setting changes', () => {
    useEnv();
    const first = webTools();
    expect(webTools()).toBe(first);
    useEnv({ ASSISTANT_READ_TIMEOUT_MS: '5000' });
    expect(webTools()).not.toBe(first);
  });
});
