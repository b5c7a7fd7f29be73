// The HTTP server (plain node:http): POST /v1/systemone, GET /v1/models, GET /v1/usage, GET /healthz,
// GET /v1/openapi.json (openapi.ts), GET /metrics (metrics.ts; env keys only) — all authenticated (keys/access.ts:
// env keys and the key store; per-key limits → 429).
// Every response carries X-Request-Id (also as x-typesafe-request-id, which the TypeSafe SDK reads) and
// Server-Timing. One JSON log line per request: id, route, status, latency, token counts; never state text.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBackend, type BackendConfig } from '../backends';
import { BackendError, type Backend } from '../engine/backend';
import { JudgeEngine, type JudgeOutcome, type PreparedJob } from '../engine/engine';
import type { Temperatures } from '../engine/readout';
import { ApiError } from '../protocol/errors';
import { KeyAccess, tooManyRequests, type Caller, type KeysOptions } from '../keys/access';
import type { Price } from '../keys/config';
import { Admission, Ticket, type AdmissionSettings } from './admission';
import { parseJsonBody, readBody, sendJson } from './http';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './limits';
import { BatchedLineWriter } from './log-writer';
import { JudgeMetrics, METRICS_CONTENT_TYPE, METRICS_PATH, watchAdmission } from './metrics';
import { OPENAPI_DOCUMENT, OPENAPI_PATH } from './openapi';
import { createPlayground, type PlaygroundSettings, type PlaygroundStatus } from './playground';
import { createConsole, type ConsoleContext } from './console';

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
  /** What the upstream model server reported for this request's calls (prompt, of which cached, and output). */
  upstream_prompt_tokens?: number;
  upstream_cached_tokens?: number;
  upstream_output_tokens?: number;
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
  /** The operator's console at /console (console/): its password and session length; its clock for tests. */
  console?: ConsoleContext['settings'] & Pick<ConsoleContext, 'now' | 'signInLimits' | 'webChat'>;
}

export interface JudgeServer {
  url: string;
  engine: JudgeEngine;
  /** The one admission queue every judging request goes through. */
  admission: Admission;
  /** Whether GET /playground is served and may judge without a key, and why. */
  playground: PlaygroundStatus;
  /** Whether /console can be signed in to, and if not why. */
  console: { on: boolean; reason: string };
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SYSTEMONE = '/v1/systemone';
/** Every path `route` answers besides the playground's and the console's; any other is a 404. */
export const ROUTES: ReadonlySet<string> = new Set([
  SYSTEMONE,
  '/v1/models',
  '/v1/usage',
  '/healthz',
  METRICS_PATH,
  OPENAPI_PATH,
]);
const CLIENT_GONE = 'The client closed the connection before the answer.';

/** What can be told to stop on a forced shutdown: a request's ticket, or the playground's controller. */
interface Abortable {
  abort(reason?: unknown): void;
}

function isBackend(value: BackendConfig | Backend): value is Backend {
  return typeof (value as Backend).score === 'function';
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  // The common case, a plain path without a query or a trailing slash, as it is.
  if (raw === SYSTEMONE) return raw;
  const q = raw.indexOf('?');
  return (q === -1 ? raw : raw.slice(0, q)).replace(/\/+$/, '') || '/';
}

/** new Date().toISOString(), computed once per millisecond however many requests start in it. */
let isoAt = -1;
let isoText = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== isoAt) {
    isoAt = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** What every request of one server shares. */
interface ServerContext {
  engine: JudgeEngine;
  access: KeyAccess;
  admission: Admission;
  limits: ServerLimits;
  log: (line: LogLine) => void;
  inFlight: Set<Abortable>;
  metrics: JudgeMetrics;
  closing: boolean;
  /** The routes other than POST /v1/systemone (and the playground's). */
  route(req: IncomingMessage, res: ServerResponse, line: LogLine, timing: string[]): Promise<[number, unknown]>;
}

/**
 * One request and its answer. POST /v1/systemone goes straight through its steps (authenticate, read, prepare,
 * admit, answer), waiting only where something really is asynchronous; every other route goes through `route`.
 * Exactly one reply per request, with one log line.
 */
class Exchange {
  readonly started = performance.now();
  readonly requestId: string;
  readonly line: LogLine;
  readonly timing: string[] = [];
  private caller?: Caller;
  private job?: PreparedJob;
  /** Milliseconds spent preparing the job; when it was queued and when its task started (performance.now()). */
  private prepared = 0;
  private queued = 0;
  private answering = 0;
  private replied = false;

  constructor(
    private readonly context: ServerContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    const incoming = req.headers['x-request-id'];
    this.requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    this.line = {
      time: isoNow(),
      level: 'info',
      request_id: this.requestId,
      method: req.method ?? '',
      path: pathOf(req.url),
      status: 0,
      latency_ms: 0,
    };
  }

  start(): void {
    if (this.line.path === SYSTEMONE && this.req.method === 'POST') this.judge();
    else {
      this.context.route(this.req, this.res, this.line, this.timing).then(
        ([status, body]) => this.reply(status, body),
        (error: unknown) => this.fail(error),
      );
    }
  }

  // ---------- POST /v1/systemone ----------

  private judge(): void {
    try {
      const caller = this.context.access.authenticateNow(this.req);
      if (isPromise(caller)) {
        caller.then(
          (known) => this.authenticated(known),
          (error: unknown) => this.fail(error),
        );
      } else this.authenticated(caller);
    } catch (error) {
      this.fail(error);
    }
  }

  private authenticated(caller: Caller): void {
    try {
      const { access, limits } = this.context;
      this.line.key_id = caller.keyId;
      const refusal = access.admit(caller);
      if (refusal) throw tooManyRequests(this.res, refusal);
      const contentType = (this.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (contentType !== 'application/json') {
        throw new ApiError(
          415,
          `Send the body as application/json (got ${contentType ? JSON.stringify(contentType) : 'no content type'}).`,
          'unsupported_media_type',
        );
      }
      this.caller = caller;
      readBody(this.req, limits.maxBodyBytes).then(
        (raw) => this.read(raw),
        (error: unknown) => this.fail(error),
      );
    } catch (error) {
      this.fail(error);
    }
  }

  private read(raw: Buffer): void {
    try {
      const { engine, limits } = this.context;
      const body = parseJsonBody(raw.toString('utf8'), limits.maxJsonDepth);
      // Bad requests (422/400, over the token budget) are refused before queueing; only judging takes a slot.
      const preparing = performance.now();
      const job = engine.prepareNow(body);
      if (isPromise(job)) {
        job.then(
          (ready) => this.admit(ready, preparing),
          (error: unknown) => this.fail(error),
        );
      } else this.admit(job, preparing);
    } catch (error) {
      this.fail(error);
    }
  }

  private admit(job: PreparedJob, preparing: number): void {
    const { admission, inFlight } = this.context;
    this.prepared = performance.now() - preparing;
    this.job = job;
    const ticket = new Ticket();
    inFlight.add(ticket);
    const res = this.res;
    res.on('close', () => {
      if (!res.writableFinished) ticket.abort(new ApiError(499, CLIENT_GONE, 'client_closed_request'));
    });
    this.queued = performance.now();
    admission
      .admit(ticket, (admitted) => this.answer(admitted))
      .then(
        (outcome) => {
          inFlight.delete(ticket);
          this.answered(outcome);
        },
        (error: unknown) => {
          inFlight.delete(ticket);
          this.fail(error);
        },
      );
  }

  /** The task in the admission slot. The backend's job has a signal only if the backend reads it. */
  private answer(ticket: Ticket): Promise<JudgeOutcome> {
    this.answering = performance.now();
    this.timing.push(`queue;dur=${(this.answering - this.queued).toFixed(2)}`);
    const { model, state, rendered } = this.job!;
    return this.context.engine.answerJob({
      model,
      state,
      rendered,
      requestId: this.requestId,
      get signal() {
        return ticket.signal;
      },
    });
  }

  private answered({ response, minCoveredMass, upstream }: JudgeOutcome): void {
    const engineMs = performance.now() - this.answering;
    this.timing.push(`engine;dur=${(this.prepared + engineMs).toFixed(2)}`);
    this.context.metrics.observeEngine(response.model, engineMs / 1000);
    const line = this.line;
    line.model = response.model;
    line.questions = this.job!.rendered.questions.length;
    line.input_tokens = response.usage.input_tokens;
    line.output_tokens = response.usage.output_tokens;
    this.context.access.record(this.caller!, response.usage.input_tokens, upstream);
    if (minCoveredMass !== undefined) line.min_covered_mass = minCoveredMass;
    if (upstream) {
      line.upstream_prompt_tokens = upstream.promptTokens;
      line.upstream_cached_tokens = upstream.cachedTokens;
      line.upstream_output_tokens = upstream.outputTokens;
    }
    this.reply(200, response);
  }

  // ---------- the answer ----------

  private fail(error: unknown): void {
    const { line, res } = this;
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
      this.reply(error.status, error.body());
    } else {
      line.level = 'error';
      line.error_type = 'internal_error';
      line.error = error instanceof Error ? error.message : String(error);
      const internal = 'Internal error; the request id is in the X-Request-Id header.';
      this.reply(500, new ApiError(500, internal, 'internal_error').body());
    }
  }

  private reply(status: number, body: unknown): void {
    if (this.replied) return;
    this.replied = true;
    const { line, res } = this;
    const total = performance.now() - this.started;
    line.status = status;
    line.latency_ms = Math.round(total * 100) / 100;
    if (!res.headersSent && !res.destroyed) {
      const timing = this.timing;
      let serverTiming = '';
      for (let i = 0; i < timing.length; i++) serverTiming += timing[i] + ', ';
      serverTiming += `total;dur=${total.toFixed(2)}`;
      const headers = [
        'x-request-id',
        this.requestId,
        'x-typesafe-request-id',
        this.requestId,
        'server-timing',
        serverTiming,
      ];
      if (this.context.closing) headers.push('connection', 'close');
      sendJson(res, status, body, headers);
    }
    this.context.log(line);
  }
}

/** GET /metrics: the operator's scrape (an env key; store keys are customers'), as Prometheus' text. */
function serveMetrics(
  metrics: JudgeMetrics,
  caller: Caller,
  req: IncomingMessage,
  res: ServerResponse,
  line: LogLine,
): [number, unknown] {
  if (caller.source !== 'env') {
    throw new ApiError(
      403,
      `${METRICS_PATH} is for the operator: use a key from JUDGE_API_KEYS (apiKeys), not one made by "keys create".`,
      'permission_error',
    );
  }
  if (req.method !== 'GET') throw new ApiError(405, `Use GET ${METRICS_PATH}.`, 'method_not_allowed');
  const text = metrics.render();
  res.writeHead(200, {
    'content-type': METRICS_CONTENT_TYPE,
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-request-id': line.request_id,
    'x-typesafe-request-id': line.request_id,
  });
  res.end(text);
  // The answer is sent; Exchange.reply only logs it.
  return [200, undefined];
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
  const write = options.log ?? ((line: LogLine) => logWriter!.push(JSON.stringify(line)));
  // Documented paths are the metrics' `path` labels; any other is `other`.
  const metrics = new JudgeMetrics(new Set(Object.keys(OPENAPI_DOCUMENT.paths)));
  const log = (line: LogLine) => {
    metrics.observeRequest(line);
    write(line);
  };
  const inFlight = new Set<Abortable>();
  const admission = new Admission(options.admission);
  watchAdmission(metrics, admission);
  const playground = createPlayground({
    settings: options.playground,
    engine,
    limits,
    inFlight,
    admit: (task, signal) => admission.run(task, { signal }),
    address: () => server.address(),
  });
  const { now: consoleClock, signInLimits, webChat, ...consoleSettings } = options.console ?? {};
  const operatorConsole = createConsole({
    settings: consoleSettings,
    access,
    now: consoleClock,
    signInLimits,
    webChat,
  });

  /** Every route but POST /v1/systemone (which Exchange takes straight through its steps). */
  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    line: LogLine,
    timing: string[],
  ): Promise<[number, unknown]> {
    const path = line.path;
    if (playground.handles(path)) return playground.route(req, res, line, timing);
    if (operatorConsole.handles(path)) return operatorConsole.route(req, res, line);
    if (!ROUTES.has(path)) throw new ApiError(404, `No route ${path}.`, 'not_found');
    const caller = await access.authenticate(req);
    line.key_id = caller.keyId;
    if (path === '/healthz') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /healthz.', 'method_not_allowed');
      return [context.closing ? 503 : 200, { status: context.closing ? 'shutting_down' : 'ok', backend: backend.kind }];
    }
    if (path === '/v1/models') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /v1/models.', 'method_not_allowed');
      return [200, { models: await engine.listModelsWithScoring() }];
    }
    if (path === '/v1/usage') {
      if (req.method !== 'GET') throw new ApiError(405, 'Use GET /v1/usage.', 'method_not_allowed');
      return [200, await access.usage(caller, new URL(req.url ?? '/', 'http://localhost').searchParams)];
    }
    if (path === OPENAPI_PATH) {
      if (req.method !== 'GET') throw new ApiError(405, `Use GET ${OPENAPI_PATH}.`, 'method_not_allowed');
      return [200, OPENAPI_DOCUMENT];
    }
    if (path === METRICS_PATH) return serveMetrics(metrics, caller, req, res, line);
    // POST /v1/systemone never gets here.
    throw new ApiError(405, 'Use POST /v1/systemone.', 'method_not_allowed');
  }

  const context: ServerContext = { engine, access, admission, limits, log, inFlight, metrics, closing: false, route };
  const server = createServer((req, res) => new Exchange(context, req, res).start());
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
      context.closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = options.shutdownGraceMs ?? 10_000;
      const timer = setTimeout(() => {
        const shutdown = new ApiError(503, 'The server is shutting down; try again shortly.', 'shutting_down');
        for (const request of inFlight) request.abort(shutdown);
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

  return {
    url: `http://${host}:${address.port}`,
    engine,
    admission,
    playground: playground.status(),
    console: operatorConsole.status(),
    close,
  };
}
