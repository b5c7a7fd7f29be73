// A check run's fetch end to end, on a real Postgres 17 and loopback sites through the real outbound guard, page
// reader and web search: a page read fresh each run despite the reader's cache (baseline, unchanged, changed with the
// lines added and removed, one notification); a page's selected part; RSS and Atom feeds gaining items; a JSON value
// crossing its threshold; new search results from a DuckDuckGo HTML fake; and the runs that fail, in a sentence: an
// HTTP 500, a refused URL, a selector that matches nothing, a page that is no feed, a JSON value missing or not a
// number, a feed that does not answer in time.
import type http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { createCheckObserver, runCheck, type CheckObserver } from '../../src/checks/observe';
import { createOutboundGuard } from '../../src/outbound';
import { createPageReader, createWebSearch, type PageReader } from '../../src/web';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';
import { startSite, type FakeSite } from '../web/fake-site';

/** What a path of the fake site answers now; a test changes it between runs. */
interface Answer {
  status: number;
  type: string;
  body: string | Buffer;
}
const answers = new Map<string, Answer>();
const answer = (path: string, body: string | Buffer, type = 'text/html; charset=utf-8', status = 200) =>
  answers.set(path, { status, type, body });

const serve = (path: string) => (_request: http.IncomingMessage, response: http.ServerResponse) => {
  const current = answers.get(path);
  if (!current) {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
    return;
  }
  response.writeHead(current.status, { 'content-type': current.type });
  response.end(current.body);
};

/** The queries DuckDuckGo's fake was sent (the form's `q`). */
const searched: string[] = [];
let ddgPage = '';

const db = useAssistantDatabase();
let site: FakeSite;
let other: FakeSite;
let reader: PageReader;
let observer: CheckObserver;

const PATHS = [
  '/page',
  '/shop',
  '/rss.xml',
  '/rss1.rdf',
  '/latin1.xml',
  '/atom.xml',
  '/not-a-feed',
  '/api/price',
  '/broken',
  '/broken.json',
];

beforeAll(async () => {
  site = await startSite({
    ...Object.fromEntries(PATHS.map((path) => [path, serve(path)])),
    '/slow.xml': () => undefined, // never answers
    '/stalled.xml': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/rss+xml' });
      response.write('<?xml version="1.0"?><rss version="2.0"><channel>'); // and never finishes
    },
    '/html/': (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        searched.push(new URLSearchParams(body).get('q') ?? '');
        response.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' });
        response.end(ddgPage);
      });
    },
  });
  // A loopback site that is not on the allow list.
  other = await startSite({ '/page': serve('/page'), '/feed.xml': serve('/rss.xml') });
  const guard = createOutboundGuard({ allow: [site.hostPort], protect: [] });
  reader = createPageReader({ guard, cacheTtlMs: 60_000 });
  const search = createWebSearch({
    backend: 'duckduckgo',
    baseUrl: `${site.url}/html/`,
    outbound: { allow: [site.hostPort], protect: [] },
  });
  observer = createCheckObserver({ guard, reader, search });
});
afterAll(async () => {
  await site?.close();
  await other?.close();
});

let clock = new Date('2036-07-01T09:00:00Z').getTime();
const tick = () => new Date((clock += 60_000));

const made: { userId: string; checkId: number }[] = [];
afterEach(async () => {
  // One check at a time: every test's checks are gone before the next one claims its runs.
  for (const { userId, checkId } of made.splice(0)) await assistant.deleteCheck(db.pool, userId, checkId);
});

/** Adds an every-minute check for a new user. */
async function watch(input: Omit<Parameters<typeof assistant.addCheck>[2], 'schedule'>) {
  const userId = await createUser(db.pool, 'observe');
  const added = await assistant.addCheck(db.pool, userId, { schedule: 'every minute', ...input }, new Date(clock));
  if (!added.ok) throw new Error(added.message);
  made.push({ userId, checkId: added.check.id });
  return { userId, checkId: added.check.id };
}

/** Deletes a check before the test ends (so that the next one is the only one due). */
async function drop(check: { userId: string; checkId: number }) {
  await assistant.deleteCheck(db.pool, check.userId, check.checkId);
  made.splice(
    made.findIndex((entry) => entry.checkId === check.checkId),
    1,
  );
}

/** An observer with a time limit of 0.3 s. */
const impatient = () =>
  createCheckObserver({
    guard: createOutboundGuard({ allow: [site.hostPort], protect: [] }),
    reader,
    search: createWebSearch({ backend: 'duckduckgo', baseUrl: `${site.url}/html/`, outbound: { protect: [] } }),
    timeoutMs: 300,
  });

/** The next minute: claims the check's run, the only one due. */
async function claim(checkId: number): Promise<{ runId: number; now: Date }> {
  const now = tick();
  const due = await assistant.claimDueChecks(db.pool, now);
  expect(due.map((entry) => entry.checkId)).toEqual([checkId]);
  return { runId: due[0].runId, now };
}

/** Claims the check's next run and runs it through the real observer. */
async function run(checkId: number, by: CheckObserver = observer): Promise<assistant.ObservedRun> {
  const { runId, now } = await claim(checkId);
  return await runCheck(db.pool, by, runId, now);
}

const finish = (runId: number) => assistant.finishCheckRun(db.pool, runId, {}, new Date(clock));

const outbox = async (userId: string) =>
  (await db.pool.query(`SELECT kind, text, data FROM assistant.outbox WHERE user_id = $1 ORDER BY id`, [userId])).rows;

const failures = async (userId: string) =>
  (
    await db.pool.query(
      `SELECT source, workflow, message, data FROM assistant.failures WHERE user_id = $1 ORDER BY id`,
      [userId],
    )
  ).rows;

const stateOf = async (checkId: number) =>
  (await db.pool.query(`SELECT state FROM assistant.checks WHERE id = $1`, [checkId])).rows[0].state;

const statuses = async (userId: string, checkId: number) =>
  (await assistant.checkHistory(db.pool, userId, checkId, 100)).runs.map((entry) => entry.status).reverse();

const shopPage = (price: string, news: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Elbe Outfitters</title></head>
<body>
  <main>
    <h1>Canoe for the Elbe</h1>
    <p>A two-seat touring canoe, built for long days on slow rivers, with room for a tent and a week of food.</p>
    <div id="price"><p>Price: ${price}</p></div>
    <p class="news">${news}</p>
  </main>
</body></html>`;

const PARAGRAPH = 'The ferry crosses the Elbe between Blankenese and Cranz every hour from April to October.';
const articlePage = (line: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Ferry timetable</title></head>
<body>
  <article>
    <h1>Ferry timetable</h1>
    <p>${PARAGRAPH}</p>
    <p>${line}</p>
  </article>
</body></html>`;

describe('page checks', () => {
  it('baseline, unchanged (read fresh, past the cache), changed with the lines added and removed, one notification', async () => {
    const url = `${site.url}/page`;
    answer('/page', articlePage('The first ferry leaves at 05:30 on weekdays.'));
    const { userId, checkId } = await watch({ what: url });

    const hits = site.hits('/page');
    expect(await run(checkId)).toEqual({
      runId: expect.any(Number),
      checkId,
      userId,
      outcome: 'baseline',
      summary: null,
      error: null,
      judge: null,
    });
    expect(site.hits('/page')).toBe(hits + 1);
    const baseline = await stateOf(checkId);
    expect(baseline.kind).toBe('page');
    expect(baseline.text).toContain(PARAGRAPH);
    expect(baseline.text).toContain('The first ferry leaves at 05:30 on weekdays.');

    // The reader caches the page for a minute: a plain read now is served from the cache, without a request…
    expect((await reader.read({ url })).cached).toBe(true);
    expect(site.hits('/page')).toBe(hits + 1);
    // …but every check run asks the site again.
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged', summary: null, error: null });
    expect(site.hits('/page')).toBe(hits + 2);
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged' });
    expect(site.hits('/page')).toBe(hits + 3);

    answer('/page', articlePage('The first ferry leaves at 06:15 on weekdays.'));
    const changed = await run(checkId);
    expect(site.hits('/page')).toBe(hits + 4);
    expect(changed).toMatchObject({ outcome: 'changed', error: null, judge: null });
    expect(changed.summary).toBe(
      'The page changed: 1 line added, 1 removed.\n' +
        '+ The first ferry leaves at 06:15 on weekdays.\n' +
        '− The first ferry leaves at 05:30 on weekdays.',
    );
    expect(await outbox(userId)).toEqual([]);

    expect(await finish(changed.runId)).toMatchObject({ status: 'notified', notified: true });
    const messages = await outbox(userId);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toEqual({
      kind: 'check',
      text: `🔔 Check ${checkId} (${url}): ${changed.summary}`,
      data: { check_id: checkId, run_id: changed.runId, judge_probability: null },
    });
    // The new state is committed: the same page again is unchanged, and nothing more is queued.
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged' });
    expect(site.hits('/page')).toBe(hits + 5);
    expect(await outbox(userId)).toHaveLength(1);
    expect(await statuses(userId, checkId)).toEqual(['baseline', 'unchanged', 'unchanged', 'notified', 'unchanged']);
  });

  it('with a selector: a change outside the selected part is unchanged, inside it changed', async () => {
    answer('/shop', shopPage('49.90 EUR', 'Spring sale starts on Monday.'));
    const { userId, checkId } = await watch({ what: `${site.url}/shop`, selector: '#price' });

    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    expect(await stateOf(checkId)).toEqual({ kind: 'page', hash: expect.any(String), text: 'Price: 49.90 EUR' });

    answer('/shop', shopPage('49.90 EUR', 'Spring sale postponed until further notice.'));
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged', summary: null });

    answer('/shop', shopPage('44.90 EUR', 'Spring sale postponed until further notice.'));
    const changed = await run(checkId);
    expect(changed).toMatchObject({
      outcome: 'changed',
      summary: 'The page changed: 1 line added, 1 removed.\n+ Price: 44.90 EUR\n− Price: 49.90 EUR',
    });
    await finish(changed.runId);
    expect(await statuses(userId, checkId)).toEqual(['baseline', 'unchanged', 'notified']);
  });

  it('a selector that matches nothing fails the run, saying so', async () => {
    answer('/shop', shopPage('49.90 EUR', 'Spring sale starts on Monday.'));
    const { userId, checkId } = await watch({ what: `${site.url}/shop`, selector: '#offer .price' });
    const failed = await run(checkId);
    const error = `nothing on ${site.url}/shop matches the selector "#offer .price"`;
    expect(failed).toMatchObject({ outcome: 'failed', summary: null, error });
    expect(await stateOf(checkId)).toBeNull();
    expect((await assistant.listChecks(db.pool, userId))[0]).toMatchObject({
      lastError: error,
      consecutiveFailures: 1,
    });
  });
});

const rssItem = (guid: string, title: string, link: string) =>
  `<item><title>${title}</title><link>${link}</link><guid isPermaLink="false">${guid}</guid>` +
  `<description>${title}, in brief.</description><pubDate>Tue, 01 Jul 2036 08:00:00 GMT</pubDate></item>`;

const rssFeed = (items: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Elbe News</title>
    <link>https://news.example/</link>
    <description>News from the river</description>
    <atom:link href="https://news.example/rss.xml" rel="self" type="application/rss+xml"/>
    ${items.join('\n    ')}
  </channel>
</rss>`;

const atomEntry = (id: string, title: string, href: string) =>
  `<entry><title>${title}</title><link rel="alternate" href="${href}"/><id>${id}</id>` +
  `<updated>2036-07-01T08:00:00Z</updated><summary>${title}.</summary></entry>`;

const atomFeed = (entries: string[]) => `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Harbour log</title>
  <link href="https://harbour.example/"/>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2036-07-01T08:00:00Z</updated>
  ${entries.join('\n  ')}
</feed>`;

describe('feed checks', () => {
  it('an RSS 2.0 feed gaining two items: one changed run naming both', async () => {
    const old = [
      rssItem('elbe-2', 'Dresden raises its dikes', 'https://news.example/dikes'),
      rssItem('elbe-1', 'Low water in Magdeburg', 'https://news.example/low-water'),
    ];
    answer('/rss.xml', rssFeed(old), 'application/rss+xml; charset=utf-8');
    const { userId, checkId } = await watch({ what: `${site.url}/rss.xml`, kind: 'feed' });

    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    expect(await stateOf(checkId)).toEqual({ kind: 'feed', seen: ['elbe-2', 'elbe-1'] });
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged' });

    answer(
      '/rss.xml',
      rssFeed([
        rssItem('elbe-4', 'New ferry line to Cranz', 'https://news.example/ferry'),
        rssItem('elbe-3', 'Salmon return to the upper Elbe', 'https://news.example/salmon'),
        ...old,
      ]),
      'application/rss+xml; charset=utf-8',
    );
    const changed = await run(checkId);
    expect(changed).toMatchObject({ outcome: 'changed', error: null });
    expect(changed.summary).toBe(
      '2 new items:\n' +
        '• New ferry line to Cranz — https://news.example/ferry\n' +
        '• Salmon return to the upper Elbe — https://news.example/salmon',
    );
    await finish(changed.runId);
    expect(await stateOf(checkId)).toEqual({ kind: 'feed', seen: ['elbe-4', 'elbe-3', 'elbe-2', 'elbe-1'] });
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged' });
    expect((await outbox(userId)).map((message) => message.kind)).toEqual(['check']);
    expect(await statuses(userId, checkId)).toEqual(['baseline', 'unchanged', 'notified', 'unchanged']);
  });

  it('an Atom feed: the baseline records its entry ids, a new entry is named with its link', async () => {
    const entries = [
      atomEntry('urn:harbour:2', 'Container ship arrives', 'https://harbour.example/log/2'),
      atomEntry('urn:harbour:1', 'Harbour opens at dawn', 'https://harbour.example/log/1'),
    ];
    answer('/atom.xml', atomFeed(entries), 'application/atom+xml');
    const { checkId } = await watch({ what: `${site.url}/atom.xml`, kind: 'feed' });

    expect(await run(checkId)).toMatchObject({ outcome: 'baseline', error: null });
    expect(await stateOf(checkId)).toEqual({ kind: 'feed', seen: ['urn:harbour:2', 'urn:harbour:1'] });

    // A relative link is made absolute against the feed's URL.
    answer('/atom.xml', atomFeed([atomEntry('urn:harbour:3', 'Tall ships week', '/log/3'), ...entries]));
    expect(await run(checkId)).toMatchObject({
      outcome: 'changed',
      summary: `1 new item:\n• Tall ships week — ${site.url}/log/3`,
    });
  });

  it('an RSS 1.0 (RDF) feed: the baseline records its items', async () => {
    answer(
      '/rss1.rdf',
      `<?xml version="1.0" encoding="UTF-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="https://news.example/rss1.rdf">
    <title>Elbe News</title>
    <link>https://news.example/</link>
    <description>News from the river</description>
    <items><rdf:Seq><rdf:li resource="https://news.example/dikes"/></rdf:Seq></items>
  </channel>
  <item rdf:about="https://news.example/dikes">
    <title>Dresden raises its dikes</title>
    <link>https://news.example/dikes</link>
  </item>
</rdf:RDF>`,
      'application/rdf+xml',
    );
    const { checkId } = await watch({ what: `${site.url}/rss1.rdf`, kind: 'feed' });
    expect(await run(checkId)).toMatchObject({ outcome: 'baseline', error: null });
    expect(await stateOf(checkId)).toEqual({ kind: 'feed', seen: ['https://news.example/dikes'] });
  });

  it('an ISO-8859-1 feed is decoded in the charset it names', async () => {
    const latin1 = (items: string[]) =>
      Buffer.from(rssFeed(items).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    const old = rssItem('dd-1', 'Elbwiesen überflutet', 'https://news.example/wiesen');
    answer('/latin1.xml', latin1([old]), 'application/rss+xml; charset=iso-8859-1');
    const { checkId } = await watch({ what: `${site.url}/latin1.xml`, kind: 'feed' });
    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    answer(
      '/latin1.xml',
      latin1([rssItem('dd-2', 'Grüße aus Dresden', 'https://news.example/gruesse'), old]),
      'application/rss+xml; charset=iso-8859-1',
    );
    expect(await run(checkId)).toMatchObject({
      outcome: 'changed',
      summary: '1 new item:\n• Grüße aus Dresden — https://news.example/gruesse',
    });
  });

  it("an Atom entry's link is its alternate link, not the first one", async () => {
    answer('/atom.xml', atomFeed([]), 'application/atom+xml');
    const { checkId } = await watch({ what: `${site.url}/atom.xml`, kind: 'feed' });
    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    answer(
      '/atom.xml',
      atomFeed([
        `<entry><id>tag:blogger.com,1999:post-7</id><title>Tall ships week</title>` +
          `<link rel="replies" type="application/atom+xml" href="https://harbour.example/feeds/7/comments"/>` +
          `<link rel="edit" type="application/atom+xml" href="https://harbour.example/api/posts/7"/>` +
          `<link rel="self" type="application/atom+xml" href="https://harbour.example/api/posts/7"/>` +
          `<link rel="alternate" type="text/html" href="https://harbour.example/2036/07/tall-ships.html"/></entry>`,
      ]),
      'application/atom+xml',
    );
    expect(await run(checkId)).toMatchObject({
      outcome: 'changed',
      summary: '1 new item:\n• Tall ships week — https://harbour.example/2036/07/tall-ships.html',
    });
  });

  it('a URL that answers HTML is not a feed: the run fails saying so', async () => {
    answer('/not-a-feed', articlePage('No feed here.'));
    const { userId, checkId } = await watch({ what: `${site.url}/not-a-feed`, kind: 'feed' });
    const error = `${site.url}/not-a-feed is not an RSS or Atom feed`;
    expect(await run(checkId)).toMatchObject({ outcome: 'failed', summary: null, error });
    expect(await failures(userId)).toEqual([
      {
        source: 'check',
        workflow: `check ${checkId} (${site.url}/not-a-feed)`,
        message: error,
        data: { check_id: checkId, run_id: expect.any(Number) },
      },
    ]);
  });
});

describe('JSON checks', () => {
  it('data.price below 50: baseline at 55, unchanged at 52, changed at 48; missing or not a number fails', async () => {
    const url = `${site.url}/api/price`;
    const price = (value: unknown) =>
      answer('/api/price', JSON.stringify({ data: { price: value, currency: 'EUR' } }), 'application/json');
    price(55);
    const { userId, checkId } = await watch({ what: url, path: 'data.price', condition: 'below', threshold: 50 });

    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    expect(await stateOf(checkId)).toEqual({ kind: 'json', value: 55 });
    price(52);
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged', summary: null });
    expect(await stateOf(checkId)).toEqual({ kind: 'json', value: 52 });
    price(48);
    const changed = await run(checkId);
    expect(changed).toMatchObject({ outcome: 'changed', summary: 'data.price went below 50: 52 → 48.' });
    await finish(changed.runId);
    expect((await outbox(userId)).map((message) => message.text)).toEqual([
      `🔔 Check ${checkId} (${url}): data.price went below 50: 52 → 48.`,
    ]);

    answer('/api/price', JSON.stringify({ data: { cost: 40 } }), 'application/json');
    expect(await run(checkId)).toMatchObject({
      outcome: 'failed',
      error: `the JSON at ${url} has no value at data.price`,
    });
    answer('/api/price', JSON.stringify({ data: null }), 'application/json');
    expect(await run(checkId)).toMatchObject({
      outcome: 'failed',
      error: `the JSON at ${url} has no value at data.price`,
    });
    price('sold out');
    expect(await run(checkId)).toMatchObject({
      outcome: 'failed',
      error: `data.price at ${url} is "sold out", not a number to compare with 50`,
    });
    answer('/api/price', '<html><body>Maintenance</body></html>');
    expect(await run(checkId)).toMatchObject({ outcome: 'failed', error: `${url} did not answer with JSON` });
    // The failed runs kept the last good state.
    expect(await stateOf(checkId)).toEqual({ kind: 'json', value: 48 });
    expect(await statuses(userId, checkId)).toEqual([
      'baseline',
      'unchanged',
      'notified',
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
  });
});

/** A DuckDuckGo HTML result page in the real markup (see test/web/search.test.ts), with an ad first. */
const ddgResults = (results: { url: string; title: string }[]) => `<!DOCTYPE html>
<html><head><meta charset="UTF-8"><title>elbe river at DuckDuckGo</title></head>
<body class="body--html">
<div id="links" class="results">
  <div class="result results_links results_links_deep web-result result--ad result--ad--small">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=cruises.example&amp;u3=x">Elbe cruises – book now</a></h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=cruises.example">Ad: cheap river cruises</a>
    </div>
  </div>
  ${results
    .map(
      ({ url, title }) => `<div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}&amp;rut=5c1f0e2b">${title}</a>
      </h2>
      <a class="result__snippet" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}">About ${title}.</a>
      <div class="clear"></div>
    </div>
  </div>`,
    )
    .join('\n  ')}
</div>
<form action="/html/" method="post"><input type="hidden" name="vqd" value="4-123456789"></form>
</body></html>`;

describe('search checks', () => {
  it('a new result URL is a change naming it', async () => {
    const known = [
      { url: 'https://en.wikipedia.org/wiki/Elbe', title: 'Elbe - Wikipedia' },
      { url: 'https://www.britannica.com/place/Elbe-River', title: 'Elbe River | Britannica' },
    ];
    ddgPage = ddgResults(known);
    const { userId, checkId } = await watch({ what: 'elbe river' });
    const asked = searched.length;

    expect(await run(checkId)).toMatchObject({ outcome: 'baseline' });
    expect(searched.slice(asked)).toEqual(['elbe river']);
    expect(await stateOf(checkId)).toEqual({ kind: 'search', seen: known.map((result) => result.url) });

    // The same results in another order are nothing new.
    ddgPage = ddgResults([...known].reverse());
    expect(await run(checkId)).toMatchObject({ outcome: 'unchanged' });

    ddgPage = ddgResults([known[0], { url: 'https://www.elbe-radweg.de/', title: 'Elbe Cycle Route' }, known[1]]);
    const changed = await run(checkId);
    expect(changed).toMatchObject({
      outcome: 'changed',
      summary: '1 new result:\n• Elbe Cycle Route — https://www.elbe-radweg.de/',
    });
    expect(searched.slice(asked)).toEqual(['elbe river', 'elbe river', 'elbe river']);
    await finish(changed.runId);
    expect((await outbox(userId)).map((message) => message.text)).toEqual([
      `🔔 Check ${checkId} (elbe river): 1 new result:\n• Elbe Cycle Route — https://www.elbe-radweg.de/`,
    ]);
  });
});

describe('failed runs', () => {
  it('a page that answers HTTP 500 fails the run and writes a failure row', async () => {
    answer('/broken', '<h1>Internal Server Error</h1>', 'text/html', 500);
    const url = `${site.url}/broken`;
    const { userId, checkId } = await watch({ what: url });
    const failed = await run(checkId);
    const error = `${url} answered HTTP 500 Internal Server Error`;
    expect(failed).toEqual({
      runId: expect.any(Number),
      checkId,
      userId,
      outcome: 'failed',
      summary: null,
      error,
      judge: null,
    });
    expect(await failures(userId)).toEqual([
      {
        source: 'check',
        workflow: `check ${checkId} (${url})`,
        message: error,
        data: { check_id: checkId, run_id: failed.runId },
      },
    ]);
    // Finishing a failed run changes nothing and queues nothing.
    expect(await finish(failed.runId)).toMatchObject({ status: 'failed', notified: false, error });
    expect(await outbox(userId)).toEqual([]);
    expect((await assistant.listChecks(db.pool, userId))[0]).toMatchObject({
      lastError: error,
      consecutiveFailures: 1,
      baselineAt: null,
    });
  });

  it('a JSON endpoint that answers HTTP 500 fails the run the same way', async () => {
    answer('/broken.json', '{"error":"boom"}', 'application/json', 500);
    const url = `${site.url}/broken.json`;
    const { userId, checkId } = await watch({ what: url, path: 'data.price' });
    const error = `${url} answered HTTP 500 Internal Server Error`;
    expect(await run(checkId)).toMatchObject({ outcome: 'failed', error });
    expect((await failures(userId)).map((row) => [row.source, row.message])).toEqual([['check', error]]);
  });

  it('a feed that does not answer fails the run at the time limit', async () => {
    const { checkId } = await watch({ what: `${site.url}/slow.xml`, kind: 'feed' });
    const started = Date.now();
    const failed = await run(checkId, impatient());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failed).toMatchObject({
      checkId,
      outcome: 'failed',
      error: `${site.url}/slow.xml did not answer within 0.3 s`,
    });
  });

  it('a feed that stops half-way fails the run at the time limit, saying so', async () => {
    const { checkId } = await watch({ what: `${site.url}/stalled.xml`, kind: 'feed' });
    expect(await run(checkId, impatient())).toMatchObject({
      checkId,
      outcome: 'failed',
      error: `${site.url}/stalled.xml did not answer within 0.3 s`,
    });
  });

  it('a URL the guard refuses (a loopback port not on the allow list) fails the run without a request', async () => {
    const refused = '127.0.0.1 is a loopback address (this machine itself); requests to this machine are refused';
    const page = await watch({ what: `${other.url}/page` });
    expect(await run(page.checkId)).toMatchObject({ outcome: 'failed', error: refused });
    expect((await failures(page.userId)).map((row) => [row.source, row.message])).toEqual([['check', refused]]);
    await drop(page);
    // A feed (and a JSON endpoint) is fetched through the same guard.
    const feed = await watch({ what: `${other.url}/feed.xml`, kind: 'feed' });
    expect(await run(feed.checkId)).toMatchObject({ outcome: 'failed', error: refused });
    expect(other.requests).toEqual([]);
  });
});
