// The HTTP server (plain node:http): POST /v1/systemone, GET /v1/models, GET /healthz — all authenticated.
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
import { KeyRing } from '../shared/api-key';
import { authenticate, readBody, sendJson } from './http';

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
  error?: string;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  apiKeys: string[];
  /** A backend config (created and closed by the server) or a ready backend (the caller closes it). */
  backend: BackendConfig | Backend;
  /** Moving names → pinned ids. Default: the engine's defaultAliases ("jev-latest" → the backend's first model). */
  aliases?: Record<string, string>;
  limits?: Partial<ServerLimits>;
  temperatures?: Temperatures;
  shutdownGraceMs?: number;
  /** Where log lines go (default: one JSON line on stdout). */
  log?: (line: LogLine) => void;
}

export interface JudgeServer {
  url: string;
  engine: JudgeEngine;
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
  if (options.apiKeys.length === 0) throw new Error('startJudgeServer: apiKeys is empty; every call must be authenticated');
  const ownsBackend = !isBackend(options.backend);
  const backend = isBackend(options.backend) ? options.backend : await createBackend(options.backend);
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...(options.limits ?? {}) };
  const engine = new JudgeEngine({ backend, aliases: options.aliases, limits, temperatures: options.temperatures });
  const keys = new KeyRing(options.apiKeys);
  const log = options.log ?? ((line: LogLine) => process.stdout.write(JSON.stringify(line) + '\n'));
  const inFlight = new Set<AbortController>();
  let closing = false;

  async function route(req: IncomingMessage, res: ServerResponse, line: LogLine, timing: string[]): Promise<[number, unknown]> {
    const path = line.path;
    const known = path === '/v1/systemone' || path === '/v1/models' || path === '/healthz';
    if (!known) throw new ApiError(404, `No route ${path}.`, 'not_found');
    authenticate(req, keys);
    if (path === '/healthz') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /healthz.', 'method_not_allowed');
      return [closing ? 503 : 200, { status: closing ? 'shutting_down' : 'ok', backend: backend.kind }];
    }
    if (path === '/v1/models') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /v1/models.', 'method_not_allowed');
      return [200, { models: engine.listModels() }];
    }
    if (req.method !== 'POST') throw new ApiError(405, 'Use POST /v1/systemone.', 'method_not_allowed');
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json') {
      throw new ApiError(415, `Send the body as application/json (got ${contentType ? JSON.stringify(contentType) : 'no content type'}).`, 'unsupported_media_type');
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
      throw schemaError([{ loc: ['body'], msg: `The body is not valid JSON: ${(error as Error).message}`, type: 'json_invalid' }]);
    }
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
    });
    const started = performance.now();
    try {
      const { response, coveredMass } = await engine.judge(body, controller.signal);
      timing.push(`engine;dur=${(performance.now() - started).toFixed(2)}`);
      line.model = response.model;
      line.questions = Object.keys(response.answers).length;
      line.input_tokens = response.usage.input_tokens;
      line.output_tokens = response.usage.output_tokens;
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
        if (error instanceof ApiError) {
          line.level = error.status >= 500 ? 'error' : 'warn';
          line.error_type = error.errorType;
          if (error.status === 413) res.setHeader('connection', 'close');
          reply(error.status, error.body());
        } else if (error instanceof BackendError) {
          line.level = 'error';
          line.error_type = error.code;
          line.error = error.message;
          reply(error.status, { detail: error.message, error_type: error.code });
        } else {
          line.level = 'error';
          line.error_type = 'internal_error';
          line.error = error instanceof Error ? error.message : String(error);
          reply(500, { detail: 'Internal error; the request id is in the X-Request-Id header.', error_type: 'internal_error' });
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
        for (const controller of inFlight) controller.abort(new Error('server shutting down'));
        server.closeAllConnections();
      }, grace);
      await stopped;
      clearTimeout(timer);
      if (ownsBackend) await backend.close?.();
    })();
    return closed;
  };

  return { url: `http://${host}:${address.port}`, engine, close };
}
