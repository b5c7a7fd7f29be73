// read_page on loopback fake sites (allowed through the allow list), without the browser service: an article, a PDF,
// plain text, redirects (a loop, too many), a 50 MB page, HTTP errors, the cache; and what the guard never lets
// through: n8n's own API and the judge even with loopback allowed, and a loopback port that is not on the allow list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AssistantInputError } from '../../src/errors';
import { OutboundRefusedError, createOutboundGuard, type ProtectedEndpoint } from '../../src/outbound';
import { PageReadError, createPageReader, type PageReaderOptions } from '../../src/web';
import {
  ARTICLE_DROPS,
  ARTICLE_HTML,
  ARTICLE_KEEPS,
  JS_PAGE_HTML,
  hugePage,
  html,
  minimalPdf,
  redirect,
  startSite,
  type FakeSite,
} from './fake-site';

const PDF = minimalPdf(['Annual report 2024', 'The Elbe carried 20 million tonnes of cargo.'], 'Annual Report');

let site: FakeSite;
let n8n: FakeSite;
let judge: FakeSite;
let other: FakeSite;
const huge = { bytes: 0, finished: false };
let clock = 0;

beforeAll(async () => {
  site = await startSite({
    '/article': html(ARTICLE_HTML),
    '/app': html(JS_PAGE_HTML),
    '/report.pdf': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end(PDF);
    },
    '/download': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }); // a PDF by its bytes only
      response.end(PDF);
    },
    '/notes.txt': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('  plain notes: ü, ß and € \n');
    },
    '/latin1': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
      response.end(
        Buffer.from(
          `<html><body><article><p>${'Grüße aus Dresden an der Elbe. '.repeat(10)}</p></article></body></html>`,
          'latin1',
        ),
      );
    },
    '/image.png': (_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    },
    '/missing-page': html('<h1>Gone</h1>', 404),
    '/moved': redirect('/article', 301),
    '/loop-a': redirect('/loop-b'),
    '/loop-b': redirect('/loop-a'),
    '/chain/1': redirect('/chain/2'),
    '/chain/2': redirect('/chain/3'),
    '/chain/3': redirect('/chain/4'),
    '/chain/4': redirect('/article'),
    '/huge': hugePage(50 * 1024 * 1024, huge),
    '/huge-declared': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html', 'content-length': String(50 * 1024 * 1024) });
      response.write('<html>');
      // never finishes: the reader must not wait for 50 MB it has refused
    },
    '/slow': () => undefined,
  });
  n8n = await startSite({ '/rest/workflows': html('{"data": "n8n workflows"}') });
  judge = await startSite({ '/v1/models': html('{"data": []}') });
  other = await startSite({ '/article': html(ARTICLE_HTML) });
});
afterAll(async () => {
  for (const server of [site, n8n, judge, other]) await server?.close();
});

const protect = (): ProtectedEndpoint[] => [
  { host: 'localhost', port: n8n.port, name: "this n8n instance's own API" },
  { host: '127.0.0.1', port: judge.port, name: 'the judge' },
];

/** A reader whose guard allows the fake site, n8n's and the judge's ports (they stay protected), not `other`. */
function reader(options: Partial<PageReaderOptions> = {}, maxRedirects = 3) {
  const guard = createOutboundGuard({
    allow: [site.hostPort, n8n.hostPort, judge.hostPort],
    protect: protect(),
    maxRedirects,
  });
  return createPageReader({ guard, now: () => clock, ...options });
}

async function failure(work: Promise<unknown>): Promise<Error & { field?: string }> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('expected the read to fail');
  return error;
}

describe('read_page: content', () => {
  it('reads an article as Markdown without navigation and ads, with its title and links', async () => {
    const page = await reader().read({ url: `${site.url}/article` });
    for (const text of ARTICLE_KEEPS) expect(page.content).toContain(text);
    for (const text of ARTICLE_DROPS) expect(page.content).not.toContain(text);
    expect(page).toMatchObject({
      url: `${site.url}/article`,
      finalUrl: `${site.url}/article`,
      title: 'The Elbe, a river of trade',
      contentType: 'text/html',
      format: 'markdown',
      truncated: false,
      rendered: false,
      cached: false,
    });
    expect(page.links).toContainEqual({ text: 'the history of the Elbe', url: `${site.url}/elbe/history` });
    expect(page.note).toBeUndefined();
  });

  it('reads a PDF, by its type or by its bytes', async () => {
    for (const path of ['/report.pdf', '/download']) {
      const page = await reader().read({ url: `${site.url}${path}` });
      expect(page).toMatchObject({
        title: 'Annual Report',
        contentType: 'application/pdf',
        format: 'text',
        pages: 1,
        content: 'Annual report 2024\nThe Elbe carried 20 million tonnes of cargo.',
      });
    }
  });

  it('reads plain text and decodes the charset the server names', async () => {
    const text = await reader().read({ url: `${site.url}/notes.txt` });
    expect(text).toMatchObject({ format: 'text', content: 'plain notes: ü, ß and €', contentType: 'text/plain' });
    const latin1 = await reader().read({ url: `${site.url}/latin1` });
    expect(latin1.content).toContain('Grüße aus Dresden');
  });

  it('cuts the content at maxChars and says how much more there is', async () => {
    const page = await reader().read({ url: `${site.url}/article`, maxChars: 200 });
    expect(page.truncated).toBe(true);
    expect(page.totalChars).toBeGreaterThan(200);
    expect(page.content).toMatch(/\n\n\[… \d+ more characters not shown; ask with a larger maxChars\]$/);
    expect(page.content.indexOf('\n\n[…')).toBe(200);
  });

  it('notes that a JavaScript page could not be rendered when there is no browser service', async () => {
    const page = await reader().read({ url: `${site.url}/app` });
    expect(page.rendered).toBe(false);
    expect(page.note).toMatch(/^the page seems to need JavaScript, and no browser service is configured/);
  });

  it('refuses render: true without a browser service, naming the field', async () => {
    const error = await failure(reader().read({ url: `${site.url}/app`, render: true }));
    expect(error).toBeInstanceOf(AssistantInputError);
    expect(error.field).toBe('render');
  });
});

describe('read_page: limits', () => {
  it('follows a redirect and reports the final URL', async () => {
    const page = await reader().read({ url: `${site.url}/moved` });
    expect(page.finalUrl).toBe(`${site.url}/article`);
    expect(page.title).toBe('The Elbe, a river of trade');
  });

  it('stops a redirect loop with a clear message', async () => {
    const error = await failure(reader().read({ url: `${site.url}/loop-a` }));
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect(error.message).toBe(
      `url: ${site.url}/loop-a redirects in a loop (${site.url}/loop-b sends back to ${site.url}/loop-a)`,
    );
  });

  it('stops after the redirect limit', async () => {
    const error = await failure(reader().read({ url: `${site.url}/chain/1` }));
    expect(error.message).toBe(`url: ${site.url}/chain/1 redirects more than 3 times; the redirects were stopped`);
  });

  it('stops reading a 50 MB page at the size limit, with a clear message and without reading it all', async () => {
    const error = await failure(reader({ maxBytes: 1024 * 1024 }).read({ url: `${site.url}/huge` }));
    expect(error).toBeInstanceOf(PageReadError);
    expect(error.message).toBe(
      `url: ${site.url}/huge is too large: it is larger than the 1 MB limit; reading stopped there`,
    );
    expect(huge.finished).toBe(false);
    expect(huge.bytes).toBeLessThan(50 * 1024 * 1024);
  });

  it('refuses a page whose Content-Length is over the limit without reading it', async () => {
    const error = await failure(reader({ maxBytes: 1024 * 1024 }).read({ url: `${site.url}/huge-declared` }));
    expect(error.message).toBe(
      `url: ${site.url}/huge-declared is too large: its Content-Length is 50 MB, over the 1 MB limit; it was not read`,
    );
  });

  it('gives up on a page that does not answer in time', async () => {
    const error = await failure(reader({ timeoutMs: 300 }).read({ url: `${site.url}/slow` }));
    expect(error).toBeInstanceOf(PageReadError);
    expect(error.message).toBe(`url: ${site.url}/slow did not answer within 0.3 s`);
  });

  it('reports HTTP errors and types it cannot read', async () => {
    expect((await failure(reader().read({ url: `${site.url}/missing-page` }))).message).toBe(
      `url: ${site.url}/missing-page answered HTTP 404 Not Found`,
    );
    expect((await failure(reader().read({ url: `${site.url}/image.png` }))).message).toBe(
      `url: ${site.url}/image.png is image/png, which cannot be read as text`,
    );
  });
});

describe('read_page: the outbound guard', () => {
  it("refuses n8n's own API and the judge even with their loopback ports allowed, sending them nothing", async () => {
    const n8nError = await failure(reader().read({ url: `${n8n.url}/rest/workflows` }));
    expect(n8nError).toBeInstanceOf(OutboundRefusedError);
    expect(n8nError.message).toBe(
      `url: 127.0.0.1:${n8n.port} is this n8n instance's own API, which can never be reached from here`,
    );
    const viaLocalhost = await failure(reader().read({ url: `http://localhost:${n8n.port}/rest/workflows` }));
    expect(viaLocalhost.message).toMatch(/is this n8n instance's own API, which can never be reached from here$/);
    const judgeError = await failure(reader().read({ url: `${judge.url}/v1/models` }));
    expect(judgeError.message).toBe(`url: 127.0.0.1:${judge.port} is the judge, which can never be reached from here`);
    expect(n8n.requests).toEqual([]);
    expect(judge.requests).toEqual([]);
  });

  it('refuses a redirect to a protected endpoint', async () => {
    const hop = await startSite({ '/go': redirect(`${n8n.url}/rest/workflows`) });
    try {
      const guard = createOutboundGuard({ allow: [hop.hostPort, n8n.hostPort], protect: protect() });
      const error = await failure(createPageReader({ guard }).read({ url: `${hop.url}/go` }));
      expect(error.message).toMatch(/redirects to .* which is refused: .*this n8n instance's own API/);
      expect(n8n.requests).toEqual([]);
    } finally {
      await hop.close();
    }
  });

  it('refuses a loopback port that is not on the allow list, sending it nothing', async () => {
    const error = await failure(reader().read({ url: `${other.url}/article` }));
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect(error.message).toBe(
      `url: 127.0.0.1 is a loopback address (this machine itself); requests to this machine are refused`,
    );
    expect(other.requests).toEqual([]);
  });

  it('refuses other schemes and bad input, naming the field', async () => {
    expect((await failure(reader().read({ url: 'file:///etc/passwd' }))).message).toBe(
      'url: only http and https URLs can be fetched, not file URLs',
    );
    for (const [input, field] of [
      [{ url: '' }, 'url'],
      [{ url: 7 }, 'url'],
      [{ url: `${site.url}/article`, maxChars: 10 }, 'maxChars'],
      [{ url: `${site.url}/article`, maxChars: 'lots' }, 'maxChars'],
      [{ url: `${site.url}/article`, render: 'yes' }, 'render'],
    ] as const) {
      const error = await failure(reader().read(input));
      expect(error).toBeInstanceOf(AssistantInputError);
      expect(error.field).toBe(field);
    }
  });
});

describe('read_page: the cache', () => {
  it('serves a URL from the cache for a few minutes, then fetches it again', async () => {
    const cached = reader({ cacheTtlMs: 60_000 });
    clock = 1_000;
    const before = site.hits('/article');
    expect((await cached.read({ url: `${site.url}/article` })).cached).toBe(false);
    clock = 30_000;
    const again = await cached.read({ url: `${site.url}/article`, maxChars: 300 });
    expect(again).toMatchObject({ cached: true, truncated: true });
    expect(site.hits('/article')).toBe(before + 1);
    clock = 62_000;
    expect((await cached.read({ url: `${site.url}/article` })).cached).toBe(false);
    expect(site.hits('/article')).toBe(before + 2);
  });

  it('reads a URL once when it is asked for twice at the same time', async () => {
    const before = site.hits('/article');
    const shared = reader();
    const [first, second] = await Promise.all([
      shared.read({ url: `${site.url}/article` }),
      shared.read({ url: `${site.url}/article` }),
    ]);
    expect(first.content).toBe(second.content);
    expect(site.hits('/article')).toBe(before + 1);
  });
});
