// The guarded fetch against real loopback servers on 127.0.0.1 (allowed through the allow list): pages, redirects
// checked hop by hop, loops, the redirect limit, and the address pinning. DNS is a stub; every connection the guard
// makes is to a loopback address, and refused targets are refused before any connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OutboundFetchError,
  OutboundRefusedError,
  createOutboundGuard,
  type OutboundGuardOptions,
  type ResolvedAddress,
} from '../../src/outbound';

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A loopback server answering by path; it records every request it gets. */
async function startServer(
  host: string,
  port: number,
  answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host, body, headers: req.headers });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, seen, port: (server.address() as AddressInfo).port };
}

const stop = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** DNS that knows nothing: the guard must never need it for these literal URLs. */
const noDns = async (hostname: string): Promise<ResolvedAddress[]> => {
  throw Object.assign(new Error(`unexpected DNS lookup of ${hostname}`), { code: 'ENOTFOUND' });
};

describe('guarded fetch', () => {
  let main: Awaited<ReturnType<typeof startServer>>;
  let other: Awaited<ReturnType<typeof startServer>>;
  let base: string;
  let guard: ReturnType<typeof createOutboundGuard>;
  const make = (options: Partial<OutboundGuardOptions> = {}) =>
    createOutboundGuard({ allow: [`127.0.0.1:${main.port}`], protect: [], lookup: noDns, ...options });

  beforeAll(async () => {
    main = await startServer('127.0.0.1', 0, (req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const redirect = (status: number, location: string) => {
        res.writeHead(status, { location });
        res.end('moved');
      };
      const path = url.pathname;
      if (path === '/page') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-seen-host': req.headers.host ?? '' });
        res.end('hello from the page');
      } else if (path === '/echo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] ?? null }));
      } else if (path === '/gzip') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(gzipSync('decoded, as fetch would'));
      } else if (path === '/to-page') redirect(302, '/page');
      else if (path === '/to-echo-303') redirect(303, '/echo');
      else if (path === '/to-echo-307') redirect(307, '/echo');
      else if (path === '/to-metadata') redirect(302, 'http://169.254.169.254/latest/meta-data/');
      else if (path === '/to-other') redirect(301, `http://127.0.0.1:${other.port}/`);
      else if (path === '/to-ftp') redirect(302, 'ftp://127.0.0.1/file');
      else if (path === '/loop-a') redirect(302, '/loop-b');
      else if (path === '/loop-b') redirect(302, '/loop-a');
      else if (path.startsWith('/chain/')) {
        const step = Number(path.slice('/chain/'.length));
        if (step >= 10) {
          res.writeHead(200);
          res.end(`end of the chain`);
        } else redirect(302, `/chain/${step + 1}`);
      } else {
        res.writeHead(404);
        res.end('not found');
      }
    });
    other = await startServer('127.0.0.1', 0, (_req, res) => {
      res.writeHead(200);
      res.end('other');
    });
    base = `http://127.0.0.1:${main.port}`;
    guard = make();
  });
  afterAll(async () => {
    await stop(main.server);
    await stop(other.server);
  });

  it('fetches an allowed page, with the URL host as Host', async () => {
    const response = await guard.fetch(`${base}/page`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-seen-host')).toBe(`127.0.0.1:${main.port}`);
    expect(await response.text()).toBe('hello from the page');
    expect(response.url).toBe(`${base}/page`);
    expect(response.redirected).toBe(false);
  });
  it('returns a 404 as a response, and decodes a gzip body', async () => {
    expect((await guard.fetch(`${base}/missing`)).status).toBe(404);
    expect(await (await guard.fetch(`${base}/gzip`)).text()).toBe('decoded, as fetch would');
  });
  it('follows a redirect to an allowed page', async () => {
    const response = await guard.fetch(`${base}/to-page`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello from the page');
    expect(response.url).toBe(`${base}/page`);
    expect(response.redirected).toBe(true);
  });
  it('sends a body, turns a 303 into a GET without it, and keeps it through a 307', async () => {
    const init = { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expect(await (await guard.fetch(`${base}/echo`, init)).json()).toEqual({
      method: 'POST',
      body: 'a=1',
      type: 'application/x-www-form-urlencoded',
    });
    expect(await (await guard.fetch(`${base}/to-echo-303`, init)).json()).toEqual({
      method: 'GET',
      body: '',
      type: null,
    });
    expect(await (await guard.fetch(`${base}/to-echo-307`, init)).json()).toMatchObject({
      method: 'POST',
      body: 'a=1',
    });
  });
  it('refuses a redirect to the cloud metadata address before connecting anywhere', async () => {
    const error = await guard.fetch(`${base}/to-metadata`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect((error as OutboundRefusedError).field).toBe('url');
    expect((error as Error).message).toBe(
      `url: ${base}/to-metadata redirects to http://169.254.169.254/latest/meta-data/, which is refused: ` +
        '169.254.169.254 is the cloud metadata service (AWS, GCP, Azure, OpenStack…); requests to cloud metadata services are refused',
    );
  });
  it('refuses a redirect to a loopback port that is not allowed, and that server is never called', async () => {
    const before = other.seen.length;
    await expect(guard.fetch(`${base}/to-other`)).rejects.toThrow(
      new RegExp(`redirects to http://127\\.0\\.0\\.1:${other.port}/, which is refused: 127\\.0\\.0\\.1 is a loopback`),
    );
    expect(other.seen.length).toBe(before);
  });
  it('refuses a redirect to another scheme', async () => {
    await expect(guard.fetch(`${base}/to-ftp`)).rejects.toThrow(/only http and https URLs can be fetched, not ftp/);
  });
  it('refuses the first URL without any request when it is not allowed', async () => {
    const before = main.seen.length;
    await expect(make({ allow: [] }).fetch(`${base}/page`)).rejects.toThrow(OutboundRefusedError);
    await expect(
      make({ protect: [{ host: 'localhost', port: main.port, name: 'the judge' }] }).fetch(`${base}/page`),
    ).rejects.toThrow(/is the judge, which can never be reached from here/);
    expect(main.seen.length).toBe(before);
  });
  it('stops a redirect loop', async () => {
    await expect(guard.fetch(`${base}/loop-a`)).rejects.toThrow(
      `url: ${base}/loop-a redirects in a loop (${base}/loop-b sends back to ${base}/loop-a)`,
    );
  });
  it('follows at most maxRedirects redirects (5 by default)', async () => {
    expect(await (await guard.fetch(`${base}/chain/5`)).text()).toBe('end of the chain');
    const before = main.seen.length;
    await expect(guard.fetch(`${base}/chain/0`)).rejects.toThrow(
      `url: ${base}/chain/0 redirects more than 5 times; the redirects were stopped`,
    );
    expect(main.seen.length - before).toBe(6);
    await expect(make({ maxRedirects: 0 }).fetch(`${base}/to-page`)).rejects.toThrow(/redirects more than 0 times/);
    expect((await guard.fetch(`${base}/to-page`, { redirect: 'manual' })).status).toBe(302);
  });
  it('answers a HEAD without a body, and rejects with the abort reason when the caller aborts', async () => {
    const head = await guard.fetch(`${base}/page`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const silent = await startServer('127.0.0.1', 0, () => undefined); // never answers
    try {
      const controller = new AbortController();
      const pending = make({ allow: [`127.0.0.1:${silent.port}`] }).fetch(`http://127.0.0.1:${silent.port}/`, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error('the caller gave up')), 50);
      await expect(pending).rejects.toThrow('the caller gave up');
    } finally {
      silent.server.closeAllConnections();
      await stop(silent.server);
    }
  });
  it('reports a connection failure as an OutboundFetchError naming the URL', async () => {
    const closed = await startServer('127.0.0.1', 0, () => undefined);
    await stop(closed.server);
    const error = await make({ allow: [`127.0.0.1:${closed.port}`] })
      .fetch(`http://127.0.0.1:${closed.port}/`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundFetchError);
    expect((error as Error).message).toMatch(
      new RegExp(`^url: could not fetch http://127\\.0\\.0\\.1:${closed.port}/: .*ECONNREFUSED`),
    );
  });
});

describe('address pinning', () => {
  it('connects to the address the check approved, even when DNS answers differently the next time', async () => {
    // Two loopback servers on the same port: A on 127.0.0.1, B on 127.0.0.2.
    const a = await startServer('127.0.0.1', 0, (req, res) => {
      res.writeHead(200, { 'x-host': req.headers.host ?? '' });
      res.end('A');
    });
    const b = await startServer('127.0.0.2', a.port, (_req, res) => {
      res.writeHead(200);
      res.end('B');
    });
    try {
      let calls = 0;
      const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
        if (hostname !== 'pinned.test') throw Object.assign(new Error('unexpected'), { code: 'ENOTFOUND' });
        calls += 1;
        return [{ address: calls === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
      };
      const guard = createOutboundGuard({ allow: [`pinned.test:${a.port}`], protect: [], lookup });
      const first = await guard.fetch(`http://pinned.test:${a.port}/`);
      expect(await first.text()).toBe('A');
      expect(first.headers.get('x-host')).toBe(`pinned.test:${a.port}`);
      expect(calls).toBe(1); // resolved once, by the check; the connection used that answer
      expect(b.seen).toEqual([]);
      // The stub's second answer is real and reachable: the next request (checked again) goes to B.
      expect(await (await guard.fetch(`http://pinned.test:${a.port}/`)).text()).toBe('B');
      expect(calls).toBe(2);
    } finally {
      await stop(a.server);
      await stop(b.server);
    }
  });
});
