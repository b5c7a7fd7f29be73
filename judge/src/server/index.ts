// The HTTP server (plain node:http): POST /v1/systemone, GET /v1/models, GET /v1/usage, GET /healthz — all
// authenticated (keys/access.ts: env keys and the key store; per-key limits → 429).
// Every response carries X-Request-Id (also as x-typesafe-request-id, which the TypeSafe SDK reads) and
// Server-Timing. One JSON log line per request: id, route, status, latency, token counts; never state text.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBackend, type BackendConfig } from '../backends';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from '../config';
import { BackendError, type Backend } from '../engine/backend';
import { JudgeEngine } from '../engine/engine';
import type { Temperatures } from '../engine/readout';
import { ApiError, badRequest, schemaError } from '../protocol/errors';
import { jsonNestingDepth } from '../protocol/validate';
import { KeyAccess, tooManyRequests, type KeysOptions } from '../keys/access';
import type { Price } from '../keys/config';
import { Admission, type AdmissionSettings } from './admission';
import { readBody, sendJson } from './http';
import { BatchedLineWriter } from './log-writer';
import { createPlayground, type PlaygroundSettings, type PlaygroundStatus } from './playground';

export interface LogLine {
  time: string;
  level: 'info' | 'warn' | 'error';
  request_id: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  model?: string;
  questions?: number;
  input_tokens?: number;
  output_tokens?: number;
  min_covered_mass?: number;
  error_type?: string;
  /** The caller's key id (public: `keys list` shows it; env keys: env-<digest prefix>), never the key. */
  key_id?: string;
  error?: string;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  apiKeys: string[];
  /** A backend config (created and closed by the server) or a ready backend (the caller closes it). */
  backend: BackendConfig | Backend;
  /** Moving names → pinned ids, on top of the engine's defaultAliases (`<name>-latest`, `jev-latest`). */
  aliases?: Record<string, string>;
  limits?: Partial<ServerLimits>;
  temperatures?: Temperatures;
  /** The admission queue of POST /v1/systemone: concurrency, queue length, deadline (admission.ts). */
  admission?: Partial<AdmissionSettings>;
  /** GET /playground and its open mode without a key (playground/settings.ts); default: open on loopback only. */
  playground?: Partial<PlaygroundSettings>;
  shutdownGraceMs?: number;
  /** Where log lines go (default: one JSON line on stdout). */
  log?: (line: LogLine) => void;
  /** Keys made by `systemone-judge keys` (their store, cache lifetime); default: only apiKeys, usage in memory. */
  keys?: KeysOptions;
  /** The price GET /v1/usage shows costs at (default 0.042 USD per million input tokens). */
  price?: Price;
}

export interface JudgeServer {
  url: string;
  engine: JudgeEngine;
  /** The one admission queue every judging request goes through. */
  admission: Admission;
  /** Whether GET /playground is served and may judge without a key, and why. */
  playground: PlaygroundStatus;
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function isBackend(value: BackendConfig | Backend): value is Backend {
  return typeof (value as Backend).score === 'function';
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return (q === -1 ? raw : raw.slice(0, q)).replace(/\/+$/, '') || '/';
}

export async function startJudgeServer(options: ServerOptions): Promise<JudgeServer> {
  if (options.apiKeys.length === 0 && !options.keys?.store) {
    throw new Error('startJudgeServer: no apiKeys and no key store; every call must be authenticated');
  }
  const ownsBackend = !isBackend(options.backend);
  const backend = isBackend(options.backend) ? options.backend : await createBackend(options.backend);
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...(options.limits ?? {}) };
  const engine = new JudgeEngine({ backend, aliases: options.aliases, limits, temperatures: options.temperatures });
  const access = await KeyAccess.open(options.apiKeys, options.keys, options.price);
  const logWriter = options.log ? undefined : new BatchedLineWriter();
  const log = options.log ?? ((line: LogLine) => logWriter!.push(JSON.stringify(line)));
  const inFlight = new Set<AbortController>();
  const admission = new Admission(options.admission);
  const playground = createPlayground({
    settings: options.playground,
    engine,
    limits,
    inFlight,
    admit: (task, signal) => admission.run(task, { signal }),
    address: () => server.address(),
  });
  let closing = false;

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    line: LogLine,
    timing: string[],
  ): Promise<[number, unknown]> {
    const path = line.path;
    if (playground.handles(path)) return playground.route(req, res, line, timing);
    const known = path === '/v1/systemone' || path === '/v1/models' || path === '/healthz' || path === '/v1/usage';
    if (!known) throw new ApiError(404, `No route ${path}.`, 'not_found');
    const caller = await access.authenticate(req);
    line.key_id = caller.keyId;
    if (path === '/healthz') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /healthz.', 'method_not_allowed');
      return [closing ? 503 : 200, { status: closing ? 'shutting_down' : 'ok', backend: backend.kind }];
    }
    if (path === '/v1/models') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /v1/models.', 'method_not_allowed');
      return [200, { models: engine.listModels() }];
    }
    if (path === '/v1/usage') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /v1/usage.', 'method_not_allowed');
      return [200, await access.usage(caller, new URL(req.url ?? '/', 'http://localhost').searchParams)];
    }
    if (req.method !== 'POST') throw new ApiError(405, 'Use POST /v1/systemone.', 'method_not_allowed');
    const refusal = access.admit(caller);
    if (refusal) throw tooManyRequests(res, refusal);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json') {
      throw new ApiError(
        415,
        `Send the body as application/json (got ${contentType ? JSON.stringify(contentType) : 'no content type'}).`,
        'unsupported_media_type',
      );
    }
    const raw = await readBody(req, limits.maxBodyBytes);
    const text = raw.toString('utf8');
    if (jsonNestingDepth(text) > limits.maxJsonDepth) {
      throw badRequest(`The body nests JSON deeper than ${limits.maxJsonDepth} levels.`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw schemaError([
        { loc: ['body'], msg: `The body is not valid JSON: ${(error as Error).message}`, type: 'json_invalid' },
      ]);
    }
    // Bad requests (422/400, over the token budget) are refused before queueing; only judging takes a slot.
    const preparing = performance.now();
    const job = await engine.prepare(body);
    const prepared = performance.now() - preparing;
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => {
      if (res.writableFinished) return;
      const gone = 'The client closed the connection before the answer.';
      controller.abort(new ApiError(499, gone, 'client_closed_request'));
    });
    const queued = performance.now();
    try {
      const { response, coveredMass } = await admission.run(
        async (signal) => {
          const started = performance.now();
          timing.push(`queue;dur=${(started - queued).toFixed(2)}`);
          const outcome = await engine.answer(job, signal);
          timing.push(`engine;dur=${(prepared + performance.now() - started).toFixed(2)}`);
          return outcome;
        },
        { controller },
      );
      line.model = response.model;
      line.questions = Object.keys(response.answers).length;
      line.input_tokens = response.usage.input_tokens;
      line.output_tokens = response.usage.output_tokens;
      access.record(caller, response.usage.input_tokens);
      const masses = Object.values(coveredMass).filter((m): m is number => m !== undefined);
      if (masses.length > 0) line.min_covered_mass = Math.min(...masses);
      return [200, response];
    } finally {
      inFlight.delete(controller);
    }
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const line: LogLine = {
      time: new Date().toISOString(),
      level: 'info',
      request_id: requestId,
      method: req.method ?? '',
      path: pathOf(req.url),
      status: 0,
      latency_ms: 0,
    };
    const timing: string[] = [];
    const reply = (status: number, body: unknown) => {
      const total = performance.now() - started;
      line.status = status;
      line.latency_ms = Math.round(total * 100) / 100;
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, status, body, {
          'x-request-id': requestId,
          'x-typesafe-request-id': requestId,
          'server-timing': [...timing, `total;dur=${total.toFixed(2)}`].join(', '),
          ...(closing ? { connection: 'close' } : {}),
        });
      }
      log(line);
    };
    route(req, res, line, timing).then(
      ([status, body]) => reply(status, body),
      (error: unknown) => {
        if (error instanceof BackendError) {
          // Upstream URLs and upstream error text go to the log; the caller gets the public sentence.
          line.error = error.message;
          error = error.toApiError();
        }
        if (error instanceof ApiError) {
          line.level = error.status >= 500 ? 'error' : 'warn';
          line.error_type = error.errorType;
          if (error.status === 413) res.setHeader('connection', 'close');
          if (!res.headersSent) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
          reply(error.status, error.body());
        } else {
          line.level = 'error';
          line.error_type = 'internal_error';
          line.error = error instanceof Error ? error.message : String(error);
          const internal = 'Internal error; the request id is in the X-Request-Id header.';
          reply(500, new ApiError(500, internal, 'internal_error').body());
        }
      },
    );
  });
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = options.shutdownGraceMs ?? 10_000;
      const timer = setTimeout(() => {
        const shutdown = new ApiError(503, 'The server is shutting down; try again shortly.', 'shutting_down');
        for (const controller of inFlight) controller.abort(shutdown);
        server.closeAllConnections();
      }, grace);
      await stopped;
      clearTimeout(timer);
      await access.close();
      if (ownsBackend) await backend.close?.();
      logWriter?.flush();
    })();
    return closed;
  };

  return { url: `http://${host}:${address.port}`, engine, admission, playground: playground.status(), close };
}
