// The browser service's HTTP server (protocol.ts): the key on every request, a route table, JSON in and out. It owns
// the one Chromium (chromium.ts), the outbound guard every page goes through (with the service's own address added to
// the protected endpoints), the limiter of renders, and the per-user sessions (sessions.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyRing, checkKey } from 'systemone-judge/core';

import { createOutboundGuard, type OutboundGuard } from '../outbound';
import { ChromiumHost } from './chromium';
import type { BrowserServiceConfig } from './config';
import { BusyError, Limiter } from './limiter';
import {
  BROWSER_ERROR_STATUS,
  BROWSER_KEY_HEADER,
  type BrowserErrorBody,
  type BrowserHealth,
  type RenderedPage,
} from './protocol';
import { RenderError, renderPage } from './render';
import { ServiceError } from './service-error';
import { parseClick, parseFill, parseOpen, parseRef, parseSelect, parseStep } from './session-requests';
import { SessionManager } from './sessions';

export { ServiceError };

/** One endpoint: the parsed JSON body (undefined for GET) in, the JSON answer out; errors are ServiceErrors. */
export type RouteHandler = (body: unknown) => Promise<unknown>;

export interface BrowserServer {
  /** http://host:port */
  url: string;
  port: number;
  chromium: ChromiumHost;
  close(): Promise<void>;
}

export interface BrowserServerOptions {
  config: BrowserServiceConfig;
  /** One line per render, per session step and per failure; never the key, a URL, a typed value or a user id. */
  log?: (line: string) => void;
}

const MAX_REQUEST_BYTES = 64 * 1024;

export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const { config } = options;
  const log = options.log ?? (() => undefined);
  const keys = new KeyRing([config.key]);
  const chromium = new ChromiumHost({ executablePath: config.chromiumPath });
  const limiter = new Limiter(config.concurrency, config.queue);
  let renders = 0;

  // Listening first: the guard protects the service's own address, known once it listens. Requests are handled from
  // the moment the routes exist (below, before anything else is awaited).
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const guard: OutboundGuard = createOutboundGuard({
    allow: config.allow,
    protect: [...config.protect, { host: config.host, port, name: 'the browser service itself' }],
    maxRedirects: config.maxRedirects,
  });

  const sessions = new SessionManager({
    chromium,
    guard,
    settings: config.sessions,
    stepMs: config.renderTimeoutMs,
    maxBytes: config.maxPageBytes,
    maxRedirects: config.maxRedirects,
    log,
  });

  const routes: Record<string, RouteHandler> = {
    'GET /health': async (): Promise<BrowserHealth> => ({
      status: 'ok',
      chromium: chromium.version(),
      launches: chromium.launches,
      active: limiter.active,
      queued: limiter.queued,
      renders,
      tasks: sessions.count,
      unrouted: { connections: chromium.unroutedConnections, targets: [...chromium.unroutedTargets] },
    }),
    'POST /render': async (body): Promise<RenderedPage> => {
      const request = renderRequest(body, config.renderTimeoutMs);
      const deadline = Date.now() + request.timeoutMs;
      const started = Date.now();
      try {
        const page = await limiter.run(async () =>
          renderPage(await chromium.browser(), guard, request.url, {
            deadline,
            maxBytes: config.maxPageBytes,
            maxRedirects: config.maxRedirects,
          }),
        );
        renders += 1;
        log(`render ok in ${Date.now() - started} ms (${page.refused.count} sub-resources refused)`);
        return page;
      } catch (error) {
        if (error instanceof BusyError) throw new ServiceError('busy', error.message);
        if (error instanceof RenderError) {
          log(`render ${error.code} in ${Date.now() - started} ms`);
          throw new ServiceError(error.code, error.message, error.code === 'refused' ? 'url' : undefined);
        }
        throw error;
      }
    },
    'POST /session/open': async (body) => {
      const { user, url } = parseOpen(body);
      return await sessions.open(user, url);
    },
    'POST /session/snapshot': async (body) => await sessions.snapshot(parseStep(body).user),
    'POST /session/fill': async (body) => {
      const { user, ...input } = parseFill(body);
      return await sessions.fill(user, input);
    },
    'POST /session/click-target': async (body) => {
      const { user, ref } = parseRef(body);
      return await sessions.clickTarget(user, ref);
    },
    'POST /session/click': async (body) => {
      const { user, ref, expectForm } = parseClick(body);
      return await sessions.click(user, ref, expectForm);
    },
    'POST /session/select': async (body) => {
      const { user, ref, option } = parseSelect(body);
      return await sessions.select(user, ref, option);
    },
    'POST /session/screenshot': async (body) => await sessions.screenshot(parseStep(body).user),
    'POST /session/wait': async (body) => await sessions.wait(parseStep(body).user),
    'POST /session/close': async (body) => await sessions.close(parseStep(body).user),
    'GET /session/tasks': async () => sessions.list(),
  };

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      const verdict = checkKey(request.headers[BROWSER_KEY_HEADER], keys, 'plain');
      if (verdict === 'missing') throw new ServiceError('unauthorized', `the ${BROWSER_KEY_HEADER} header is required`);
      if (verdict !== 'accepted') throw new ServiceError('forbidden', `the ${BROWSER_KEY_HEADER} header is wrong`);
      const path = new URL(request.url ?? '/', 'http://service').pathname;
      const handler = routes[`${request.method} ${path}`];
      if (!handler) throw new ServiceError('not_found', `no endpoint ${request.method} ${path}`);
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readJson(request);
      send(response, 200, await handler(body));
    } catch (error) {
      if (error instanceof ServiceError) {
        const envelope: BrowserErrorBody = { error: { code: error.code, message: error.message } };
        if (error.field) envelope.error.field = error.field;
        send(response, BROWSER_ERROR_STATUS[error.code], envelope);
        return;
      }
      log(`internal error: ${(error as Error).message.split('\n')[0]}`);
      send(response, 502, { error: { code: 'failed', message: 'the browser service failed; see its log' } });
    }
  }

  server.on(
    'request',
    (request: http.IncomingMessage, response: http.ServerResponse) => void handle(request, response),
  );
  try {
    await chromium.browser(); // a Chromium that cannot start is a start-up error, not the first request's
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await chromium.close();
    throw new Error(
      `Chromium could not be started from ${config.chromiumPath}: ${(error as Error).message.split('\n')[0]}`,
    );
  }

  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    chromium,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sessions.closeAll(); // saves every open task's profile
      await chromium.close();
    },
  };
}

function renderRequest(body: unknown, maxTimeoutMs: number): { url: string; timeoutMs: number } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError('invalid_request', 'the body must be a JSON object {url, timeoutMs?}', 'body');
  }
  const { url, timeoutMs, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ServiceError('invalid_request', `unknown field "${unknown}"`, unknown);
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ServiceError('invalid_request', 'url is required: the page to render', 'url');
  }
  if (timeoutMs === undefined) return { url: url.trim(), timeoutMs: maxTimeoutMs };
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1000) {
    throw new ServiceError(
      'invalid_request',
      'timeoutMs must be a whole number of milliseconds, 1000 or more',
      'timeoutMs',
    );
  }
  // The service's own limit caps what a client asks for (the two are configured in different processes).
  return { url: url.trim(), timeoutMs: Math.min(timeoutMs, maxTimeoutMs) };
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new ServiceError('invalid_request', 'the body is too large', 'body');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ServiceError('invalid_request', 'the body is not valid JSON', 'body');
  }
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
