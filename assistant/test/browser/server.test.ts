// The browser service on loopback with the real headless Chromium (Debian's /usr/bin/chromium, or
// ASSISTANT_CHROMIUM_PATH): the key, one Chromium for every render, a page filled in by JavaScript, and the outbound
// guard on the document and on every sub-resource (refused ones never reach their server); redirects, loops, size
// and time limits, and the busy answer. Every site is a loopback server the test starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BrowserServiceError, createBrowserClient, type BrowserClient } from '../../src/browser/client';
import { BROWSER_KEY_HEADER } from '../../src/browser/protocol';
import { startBrowserServer, type BrowserServer } from '../../src/browser/server';
import {
  ARTICLE_HTML,
  JS_PAGE_HTML,
  LATE_TEXT,
  hugePage,
  html,
  minimalPdf,
  redirect,
  startSite,
  type FakeSite,
  type Handler,
} from '../web/fake-site';
import { TEST_KEY as KEY, testConfig } from './service-config';

let site: FakeSite;
let n8n: FakeSite;
let other: FakeSite;
let service: BrowserServer;
let client: BrowserClient;
const huge = { bytes: 0, finished: false };
let releaseHold: () => void = () => undefined;

const pixel: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'image/gif' });
  response.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
};

beforeAll(async () => {
  n8n = await startSite({ '/rest/workflows': html('{"data": []}') });
  other = await startSite({ '/pixel.gif': pixel, '/article': html(ARTICLE_HTML) });
  site = await startSite({
    '/article': html(ARTICLE_HTML),
    '/app': html(JS_PAGE_HTML),
    '/embeds': html(`<!doctype html><html><head><title>Embeds</title><script src="/app.js"></script></head><body>
      <p>A page that loads things from elsewhere.</p>
      <img src="/ok.gif"><img src="${other.url}/pixel.gif"><img src="/to-other.gif">
      <script>fetch('http://localhost:${n8n.port}/rest/workflows').catch(() => {});</script>
    </body></html>`),
    '/app.js': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end('document.title = "Embeds (script ran)";');
    },
    '/ok.gif': pixel,
    '/to-other.gif': redirect(`${other.url}/pixel.gif`),
    '/to-n8n': redirect(`${n8n.url}/rest/workflows`),
    '/r1': redirect('/r2'),
    '/r2': redirect('/app'),
    '/loop-a': redirect('/loop-b'),
    '/loop-b': redirect('/loop-a'),
    '/chain/1': redirect('/chain/2'),
    '/chain/2': redirect('/chain/3'),
    '/chain/3': redirect('/chain/4'),
    '/chain/4': redirect('/chain/5'),
    '/chain/5': redirect('/article'),
    '/report.pdf': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end(minimalPdf(['A PDF'], 'PDF'));
    },
    '/huge': hugePage(50 * 1024 * 1024, huge),
    '/slow': () => undefined,
    '/hangs': html(`<html><body><p>This page hangs its renderer once it has loaded.</p>
      <script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script></body></html>`),
    '/grows': html(`<html><body><script>
      document.body.textContent = 'x'.repeat(3 * 1024 * 1024); // 3 MB of text, made by the page itself
    </script></body></html>`),
    '/hold': (_request, response) => {
      releaseHold = () => html('<html><body><p>released</p></body></html>')(_request, response);
    },
    '/gone': html('<html><body><h1>Not here</h1></body></html>', 404),
  });
  service = await startBrowserServer({
    config: testConfig([site.hostPort, n8n.hostPort], [{ host: 'localhost', port: n8n.port, name: "this n8n's API" }]),
  });
  client = createBrowserClient({ url: service.url, key: KEY });
});
afterAll(async () => {
  await service?.close();
  for (const server of [site, n8n, other]) await server?.close();
});

async function failure(work: Promise<unknown>): Promise<BrowserServiceError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BrowserServiceError);
  return error as BrowserServiceError;
}

describe('the browser service: access', () => {
  it('answers 401 without the key and 403 with a wrong one, in its envelope', async () => {
    const none = await fetch(`${service.url}/health`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      error: { code: 'unauthorized', message: `the ${BROWSER_KEY_HEADER} header is required` },
    });
    const wrong = await fetch(`${service.url}/render`, {
      method: 'POST',
      headers: { [BROWSER_KEY_HEADER]: 'not-the-key-0123456789' },
      body: JSON.stringify({ url: `${site.url}/app` }),
    });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(site.hits('/app')).toBe(0);
  });

  it('reports its health with the key: Chromium running, launched once', async () => {
    expect(await client.health()).toMatchObject({ status: 'ok', launches: 1, active: 0, queued: 0 });
    expect((await client.health()).chromium).toMatch(/^\d+\./);
  });

  it('refuses bad requests naming the field, and unknown endpoints', async () => {
    const post = (body: string) =>
      fetch(`${service.url}/render`, { method: 'POST', headers: { [BROWSER_KEY_HEADER]: KEY }, body });
    const cases: Array<[string, string]> = [
      ['{}', 'url'],
      ['{"url": ""}', 'url'],
      [`{"url": "${site.url}/app", "timeoutMs": 10}`, 'timeoutMs'],
      [`{"url": "${site.url}/app", "wait": true}`, 'wait'],
      ['not json', 'body'],
      ['[1]', 'body'],
    ];
    for (const [body, field] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
    }
    const unknown = await fetch(`${service.url}/screenshot`, { headers: { [BROWSER_KEY_HEADER]: KEY } });
    expect(unknown.status).toBe(404);
  });
});

describe('the browser service: rendering', () => {
  it('renders a page whose content JavaScript puts in after 500 ms', async () => {
    const page = await client.render({ url: `${site.url}/app` });
    expect(page.html).toContain(LATE_TEXT);
    expect(page).toMatchObject({
      url: `${site.url}/app`,
      finalUrl: `${site.url}/app`,
      status: 200,
      contentType: 'text/html',
      title: 'Late content',
      redirects: 0,
    });
  });

  it('follows redirects of the document, each one checked, and reports the final URL', async () => {
    const page = await client.render({ url: `${site.url}/r1` });
    expect(page).toMatchObject({ finalUrl: `${site.url}/app`, redirects: 2 });
    expect(page.html).toContain(LATE_TEXT);
  });

  it('stops a redirect loop and a chain over the limit', async () => {
    const loop = await failure(client.render({ url: `${site.url}/loop-a` }));
    expect(loop.code).toBe('refused');
    expect(loop.message).toBe(
      `${site.url}/loop-a redirects in a loop (${site.url}/loop-b sends back to ${site.url}/loop-a)`,
    );
    const chain = await failure(client.render({ url: `${site.url}/chain/1` }));
    expect(chain.message).toBe(`${site.url}/chain/1 redirects more than 3 times; the redirects were stopped`);
  });

  it('answers not_html for a PDF (the reader fetches it instead)', async () => {
    const error = await failure(client.render({ url: `${site.url}/report.pdf` }));
    expect(error.code).toBe('not_html');
  });

  it('keeps the status of an error page', async () => {
    expect(await client.render({ url: `${site.url}/gone` })).toMatchObject({ status: 404, title: '' });
  });

  it('stops a 50 MB page at the byte limit with a clear message, and keeps serving', async () => {
    const error = await failure(client.render({ url: `${site.url}/huge` }));
    expect(error.code).toBe('too_large');
    expect(error.message).toBe(
      `${site.url}/huge is too large: it is larger than the 2 MB limit; reading stopped there`,
    );
    expect(huge.finished).toBe(false);
    expect((await client.render({ url: `${site.url}/article` })).title).toBe('The Elbe, a river of trade | River News');
  });

  it('gives up on a page whose script never ends, and keeps serving', async () => {
    const error = await failure(client.render({ url: `${site.url}/hangs`, timeoutMs: 1500 }));
    expect(error.code).toBe('timeout');
    expect((await client.render({ url: `${site.url}/article` })).title).toBe('The Elbe, a river of trade | River News');
  });

  it('refuses a page that its scripts make larger than the limit', async () => {
    const error = await failure(client.render({ url: `${site.url}/grows` }));
    expect(error.code).toBe('too_large');
    expect(error.message).toBe(`${site.url}/grows is too large once rendered (over 2 MB)`);
  });

  it('gives up on a page that does not answer within the time asked', async () => {
    const error = await failure(client.render({ url: `${site.url}/slow`, timeoutMs: 1000 }));
    expect(error.code).toBe('timeout');
  });
});

describe('the browser service: the outbound guard', () => {
  it('loads allowed sub-resources and refuses the others before they reach their servers', async () => {
    const page = await client.render({ url: `${site.url}/embeds` });
    expect(page.title).toBe('Embeds (script ran)');
    expect(site.hits('/ok.gif')).toBe(1);
    expect(other.requests).toEqual([]); // not on the allow list: neither directly nor by a redirect
    expect(n8n.requests).toEqual([]); // protected, although its port is allowed
    expect(page.refused.count).toBe(3);
    expect(page.refused.examples).toContainEqual(expect.stringMatching(/this n8n's API, which can never be reached/));
    expect(page.refused.examples).toContainEqual(expect.stringMatching(/loopback address/));
  });

  it("refuses a document on n8n's API, directly or by a redirect, and a loopback port not allowed", async () => {
    const direct = await failure(client.render({ url: `http://localhost:${n8n.port}/rest/workflows` }));
    expect(direct.code).toBe('refused');
    expect(direct.message).toBe(`localhost:${n8n.port} is this n8n's API, which can never be reached from here`);
    const redirected = await failure(client.render({ url: `${site.url}/to-n8n` }));
    expect(redirected.code).toBe('refused');
    const notAllowed = await failure(client.render({ url: `${other.url}/article` }));
    expect(notAllowed.message).toBe(
      '127.0.0.1 is a loopback address (this machine itself); requests to this machine are refused',
    );
    expect(n8n.requests).toEqual([]);
    expect(other.requests).toEqual([]);
  });

  it('refuses the browser service itself', async () => {
    const error = await failure(client.render({ url: `${service.url}/health` }));
    expect(error.message).toMatch(/is the browser service itself, which can never be reached from here$/);
  });

  it('let no refused request escape the route: none reached the black-hole proxy either', async () => {
    const { targets } = (await client.health()).unrouted;
    for (const server of [n8n, other]) expect(targets).not.toContain(server.hostPort);
    expect(targets).not.toContain(`127.0.0.1:${service.port}`);
  });
});

describe('the browser service: one Chromium', () => {
  it('reuses one Chromium for every render, and starts it again after it went away', async () => {
    const health = await client.health();
    expect(health.launches).toBe(1);
    expect(health.renders).toBeGreaterThan(3);
    await (await service.chromium.browser()).close(); // as if Chromium crashed
    expect((await client.health()).chromium).toBeNull();
    expect((await client.render({ url: `${site.url}/app` })).html).toContain(LATE_TEXT);
    expect((await client.health()).launches).toBe(2);
  });

  it('answers busy when every slot and the queue are taken', async () => {
    const small = await startBrowserServer({ config: { ...testConfig([site.hostPort]), concurrency: 1, queue: 0 } });
    try {
      const smallClient = createBrowserClient({ url: small.url, key: KEY });
      const first = smallClient.render({ url: `${site.url}/hold` });
      while (site.hits('/hold') === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const busy = await failure(smallClient.render({ url: `${site.url}/article` }));
      expect(busy.code).toBe('busy');
      expect(busy.message).toBe('the browser service is busy (1 renders running, 0 waiting); try again shortly');
      releaseHold();
      expect((await first).html).toContain('released');
    } finally {
      await small.close();
    }
  });
});
