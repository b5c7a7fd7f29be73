// A loopback stand-in for the public web in the e2e run: DuckDuckGo's no-JavaScript HTML endpoint (`POST /html/`,
// `div.result` blocks with `a.result__a` and `a.result__snippet`, `/l/?uddg=` links) whose results point at this
// server's own pages: an article with navigation and ads, and a page whose text a script inserts after 500 ms.
// Pages under /watch/ are set by the tests (`PUT /__watch/<name>`, see WebSiteControl), for the background checks.
// `GET /__hits` lists every path and query asked for so far (to prove a page was, or was never, fetched).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readBody, type RunningServer } from './http-util';

export const ZOO_FACT = 'The Riverside Zoo is open daily from 9:00 to 17:30, and until 20:00 on Fridays in summer.';
export const JS_FACT = 'Tickets for the night tour go on sale on the first Monday of each month.';

const html = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};

export async function startWebSite(): Promise<RunningServer> {
  let base = '';
  const result = (href: string, title: string, snippet: string) => `
  <div class="result results_links results_links_deep web-result">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(
        href,
      )}&amp;rut=1a2b">${title}</a></h2>
      <a class="result__snippet" href="${href}">${snippet}</a>
    </div>
  </div>`;
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void> | void> = {
    '/html/': async (req, res) => {
      const query = new URLSearchParams(await readBody(req)).get('q') ?? '';
      html(
        res,
        `<!DOCTYPE html><html><head><title>${query} at DuckDuckGo</title></head><body><div id="links" class="results">
        ${result(`${base}/articles/zoo`, 'Riverside Zoo: opening hours', 'Opening hours and prices of the Riverside Zoo')}
        ${result(`${base}/articles/night-tour`, 'Night tours at the zoo', 'Tickets and dates for night tours')}
        </div></body></html>`,
      );
    },
    '/articles/zoo': (_req, res) =>
      html(
        res,
        `<!DOCTYPE html><html><head><title>Riverside Zoo: opening hours</title></head><body>
        <nav><a href="/">Home</a> | <a href="/shop">Shop</a> | NAVIGATION-MENU-TEXT</nav>
        <aside class="ad">ADVERTISEMENT: buy cheap sunglasses now</aside>
        <article><h1>Opening hours</h1><p>${ZOO_FACT}</p>
        <p>Children under six enter free of charge; the last admission is one hour before closing time, and the
        petting area closes at 16:00 every day of the year, whatever the weather.</p></article>
        <footer>FOOTER-TEXT © Riverside</footer></body></html>`,
      ),
    '/articles/night-tour': (_req, res) =>
      html(
        res,
        `<!DOCTYPE html><html><head><title>Night tours</title></head><body><div id="app"></div>
        <noscript>You need to enable JavaScript to run this app.</noscript>
        <script>setTimeout(function () {
          document.getElementById('app').innerHTML = '<article><h1>Night tours</h1><p>${JS_FACT}</p></article>';
        }, 500);</script></body></html>`,
      ),
  };
  const watched = new Map<string, WatchedPage>();
  const hits: string[] = [];
  const server = await listenOnLoopback(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/__hits') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(hits));
      return;
    }
    hits.push(req.url ?? '/');
    if (path.startsWith('/__watch/') && req.method === 'PUT') {
      watched.set(path.slice('/__watch/'.length), JSON.parse(await readBody(req)) as WatchedPage);
      res.writeHead(204);
      res.end();
      return;
    }
    const page = path.startsWith('/watch/') ? watched.get(path.slice('/watch/'.length)) : undefined;
    if (page) {
      res.writeHead(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8' });
      res.end(page.body);
      return;
    }
    const route = routes[path];
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  base = server.url;
  return server;
}

/** A page the tests serve at /watch/<name>. */
export interface WatchedPage {
  status?: number;
  contentType?: string;
  body: string;
}

/** Sets the fake site's watched pages from a test. */
export class WebSiteControl {
  constructor(private readonly url: string) {}

  /** The page's URL, for a check to watch. */
  watchUrl(name: string): string {
    return `${this.url}/watch/${name}`;
  }

  /** Every path and query the site was asked for that starts with `prefix`. */
  async hits(prefix: string): Promise<string[]> {
    const all = (await (await fetch(`${this.url}/__hits`)).json()) as string[];
    return all.filter((hit) => hit.startsWith(prefix));
  }

  async setPage(name: string, page: WatchedPage): Promise<void> {
    const response = await fetch(`${this.url}/__watch/${name}`, { method: 'PUT', body: JSON.stringify(page) });
    if (response.status !== 204) throw new Error(`web site: HTTP ${response.status}`);
  }
}
