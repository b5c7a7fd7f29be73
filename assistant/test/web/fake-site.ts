// Loopback web sites for the web and browser tests: a server on 127.0.0.1 answering by path, counting every
// request; the pages they serve (an article with navigation and ads, a page filled in by JavaScript); and a real PDF
// written by hand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface FakeSite {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** `127.0.0.1:<port>`, for the allow list. */
  hostPort: string;
  /** Every request's path and query, in order. */
  requests: string[];
  /** How many requests a path got. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Starts a site on 127.0.0.1 (a free port) with handlers by path; anything else is a 404. */
export async function startSite(routes: Record<string, Handler>): Promise<FakeSite> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '/');
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    const handler = routes[path];
    if (handler) handler(request, response);
    else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    requests,
    hits: (path) => requests.filter((entry) => new URL(entry, 'http://site').pathname === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string, status = 200, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    response.end(body);
  };

export const redirect =
  (location: string, status = 302): Handler =>
  (_request, response) => {
    response.writeHead(status, { location });
    response.end();
  };

const PARAGRAPHS = [
  'The river Elbe rises in the Krkonoše mountains and flows for more than a thousand kilometres to the North Sea.',
  'Along its course it passes Dresden, Magdeburg and Hamburg, where the port handles a large share of the trade.',
  'Floods in 2002 and 2013 reached record heights, and the towns along the banks have since raised their dikes.',
  'Ecologists count the middle Elbe among the last near-natural lowland rivers in Central Europe.',
];

/** A news article with a navigation bar, ads, a sidebar and a footer around it. */
export const ARTICLE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The Elbe, a river of trade | River News</title></head>
<body>
  <header><nav class="menu"><a href="/">Home</a> <a href="/sports">Sports</a> <a href="/weather">Weather menu</a></nav></header>
  <div class="ad banner">BUY CHEAP WATCHES NOW – sponsored advertisement</div>
  <main>
    <article>
      <h1>The Elbe, a river of trade</h1>
      <p class="byline">By Anna Fluss</p>
      ${PARAGRAPHS.map((text) => `<p>${text}</p>`).join('\n      ')}
      <p>Read more in <a href="/elbe/history">the history of the Elbe</a> and on
        <a href="https://en.wikipedia.org/wiki/Elbe">Wikipedia</a>.</p>
      <h2>Numbers</h2>
      <ul><li>Length: 1,094 km</li><li>Basin: 148,268 km²</li></ul>
    </article>
  </main>
  <aside class="sidebar"><h3>Sponsored</h3><div class="ad">Win a cruise! Click the ad here.</div></aside>
  <footer>Copyright River News. <a href="/privacy">Privacy</a></footer>
</body></html>`;

/** Words of the article a reader must keep, and of the page around it a reader must drop. */
export const ARTICLE_KEEPS = ['The river Elbe rises', 'Dresden, Magdeburg and Hamburg', 'Length: 1,094 km'];
export const ARTICLE_DROPS = ['BUY CHEAP WATCHES', 'Win a cruise', 'Weather menu', 'Copyright River News'];

/** The text the JavaScript page shows only once its script ran (500 ms after it loaded). */
export const LATE_TEXT =
  'This paragraph was put in by JavaScript half a second after the page loaded. ' +
  'A reader that does not run scripts sees only the empty shell and the noscript message. ' +
  'The browser service renders the page in Chromium, waits for the content, and returns the finished document.';

/** A single-page app shell: nothing but a noscript message until its script fills it in after 500 ms. */
export const JS_PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Late content</title></head>
<body>
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script>
    setTimeout(() => {
      const article = document.createElement('article');
      article.innerHTML = '<h1>Rendered by JavaScript</h1><p>${LATE_TEXT}</p>';
      document.getElementById('root').appendChild(article);
    }, 500);
  </script>
</body></html>`;

/**
 * A real one-page PDF: Helvetica text lines and a title in its document information, with a correct cross-reference
 * table (what pdf.js reads).
 */
export function minimalPdf(lines: string[], title: string): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = [
    'BT',
    '/F1 14 Tf',
    '72 720 Td',
    '18 TL',
    ...lines.map((line) => `(${escape(line)}) Tj T*`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${escape(title)}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/**
 * Streams `totalBytes` of HTML in 64 KB chunks, honouring back-pressure, without a Content-Length; records how many
 * bytes it managed to write before the reader hung up.
 */
export function hugePage(totalBytes: number, written: { bytes: number; finished: boolean }): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const write = () => {
      while (written.bytes < totalBytes) {
        written.bytes += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', write);
          return;
        }
      }
      written.finished = true;
      response.end();
    };
    response.on('error', () => undefined);
    response.write('<!doctype html><html><body><p>');
    write();
  };
}
