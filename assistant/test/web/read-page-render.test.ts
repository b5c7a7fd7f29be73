// read_page with the real browser service (headless Chromium on loopback): a page filled in by JavaScript is
// rendered when its static HTML shows too little, or whenever render: true is asked; a PDF asked to render is fetched
// instead; without a reachable service the reader says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createBrowserClient } from '../../src/browser/client';
import { startBrowserServer, type BrowserServer } from '../../src/browser/server';
import { OutboundRefusedError, createOutboundGuard } from '../../src/outbound';
import { PageReadError, createPageReader, type PageReader } from '../../src/web';
import { TEST_KEY as key, testConfig } from '../browser/service-config';
import { ARTICLE_HTML, JS_PAGE_HTML, LATE_TEXT, html, minimalPdf, startSite, type FakeSite } from './fake-site';

let site: FakeSite;
let other: FakeSite;
let service: BrowserServer;
let reader: PageReader;

beforeAll(async () => {
  site = await startSite({
    '/app': html(JS_PAGE_HTML),
    '/article': html(ARTICLE_HTML),
    '/report.pdf': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end(minimalPdf(['Rendered? No: fetched.'], 'A PDF'));
    },
  });
  other = await startSite({ '/app': html(JS_PAGE_HTML) });
  service = await startBrowserServer({ config: testConfig([site.hostPort]) });
  reader = createPageReader({
    guard: createOutboundGuard({ allow: [site.hostPort], protect: [] }),
    browser: createBrowserClient({ url: service.url, key }),
  });
});
afterAll(async () => {
  await service?.close();
  await site?.close();
  await other?.close();
});

describe('read_page with the browser service', () => {
  it('renders a page whose content JavaScript inserts after 500 ms, and reads that content', async () => {
    const page = await reader.read({ url: `${site.url}/app` });
    expect(page.rendered).toBe(true);
    expect(page.content).toContain(LATE_TEXT);
    expect(page.content).toMatch(/^#+ Rendered by JavaScript$/m);
    expect(page.note).toBeUndefined();
  });

  it('renders a page that does not need it when asked to', async () => {
    const page = await reader.read({ url: `${site.url}/article`, render: true });
    expect(page).toMatchObject({ rendered: true, title: 'The Elbe, a river of trade' });
    expect(page.content).toContain('The river Elbe rises');
  });

  it('fetches a PDF that was asked to be rendered', async () => {
    const page = await reader.read({ url: `${site.url}/report.pdf`, render: true });
    expect(page).toMatchObject({ rendered: false, format: 'text', content: 'Rendered? No: fetched.' });
  });

  it('refuses a URL the guard refuses before asking the service', async () => {
    const before = (await createBrowserClient({ url: service.url, key }).health()).renders;
    const error = await reader.read({ url: `${other.url}/app`, render: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect((await createBrowserClient({ url: service.url, key }).health()).renders).toBe(before);
    expect(other.requests).toEqual([]);
  });

  it('falls back to the static page with a note, or fails when rendering was asked, if the service is down', async () => {
    const down = await startSite({});
    const url = down.url;
    await down.close();
    const offline = createPageReader({
      guard: createOutboundGuard({ allow: [site.hostPort], protect: [] }),
      browser: createBrowserClient({ url, key }),
    });
    const page = await offline.read({ url: `${site.url}/app` });
    expect(page.rendered).toBe(false);
    expect(page.note).toMatch(
      /^the page seems to need JavaScript, but .*\/app could not be rendered: the browser service at .* is not reachable \(ECONNREFUSED\); this is what it shows without it$/,
    );
    const error = await offline.read({ url: `${site.url}/article`, render: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PageReadError);
    expect((error as Error).message).toMatch(
      /could not be rendered: the browser service at .* is not reachable \(ECONNREFUSED\)/,
    );
  });

  it('says so when the key is wrong', async () => {
    const wrongKey = createPageReader({
      guard: createOutboundGuard({ allow: [site.hostPort], protect: [] }),
      browser: createBrowserClient({ url: service.url, key: 'wrong-key-0123456789abc' }),
    });
    const error = await wrongKey.read({ url: `${site.url}/article`, render: true }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `url: ${site.url}/article could not be rendered: the x-api-key header is wrong`,
    );
  });
});
