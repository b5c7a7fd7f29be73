// The model gateway's HTTP server: <gateway>/<upstream>/<path> (upstream: llm, judge, embeddings, transcription),
// the gateway's key required, every call answered by the operator's provider and written to the ledger once it ends.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AssistantInputError } from '../errors';
import type { Pool } from 'pg';
import { GatewayBudget } from './budget';
import { ModelCall } from './call';
import { UPSTREAM_ENV, UPSTREAM_NAMES, type GatewaySettings, type UpstreamName } from './config';
import { GatewayError } from './errors';
import { sendError } from './forward';
import { recordCallFailure } from './call-failures';
import { recordModelCall, type ModelCallRecord } from './ledger';
import { Provider } from './provider';
import { handleRoute, routeOf } from './routes';

/** An audio upload is the largest body (OpenAI's limit is 25 MB). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface GatewayOptions {
  settings: GatewaySettings;
  /** The assistant's database: the ledger and the spending caps. */
  ledger: Pool;
  log?: (line: string) => void;
  /** A monotonic clock in milliseconds, for latencies. */
  now?: () => number;
  /** The wall clock the caps' windows are read in (tests move it). */
  clock?: () => Date;
}

export interface RunningGateway {
  url: string;
  port: number;
  /** Settles when every ledger row of the calls answered so far is written. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { settings } = options;
  const log = options.log ?? (() => undefined);
  const now = options.now ?? (() => performance.now());
  const providers = providersFor(settings);
  const secrets = [settings.key, ...Object.values(settings.upstreams).map((u) => u.apiKey)];
  const budget = new GatewayBudget(options.ledger, settings.priceOverrides, options.clock ?? (() => new Date()));
  const writes = new Set<Promise<void>>();
  const settleAndRecord = async (row: ModelCallRecord) => {
    const cost = row.charge
      ? await budget.settle(row.charge, row.outcome, row.reported).catch((error: Error) => {
          log(`caps: a ${row.route} call of ${row.caller.job} was not settled: ${error.message}`);
          return undefined;
        })
      : undefined;
    await recordModelCall(options.ledger, { ...row, costMicros: cost?.costMicros, pricedBy: cost?.pricedBy }, secrets);
    await recordCallFailure(options.ledger, row, secrets).catch((error: Error) =>
      log(`failures: a failed ${row.route} call of ${row.caller.job} was not recorded as a failure: ${error.message}`),
    );
  };
  const record = (row: ModelCallRecord) => {
    const write = settleAndRecord(row).catch((error: Error) =>
      log(`ledger: a ${row.route} call of ${row.caller.job} was not recorded: ${error.message}`),
    );
    writes.add(write);
    void write.finally(() => writes.delete(write));
    return write;
  };
  const server = createServer((req, res) => {
    void handle(req, res, { settings, providers, record, now, log, budget });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${settings.host}:${port}`,
    port,
    flushed: async () => {
      while (writes.size > 0) await Promise.all([...writes]);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One Provider per base URL: the llm and judge upstreams on one Ollama share its slot and its derived models. */
function providersFor(settings: GatewaySettings): Map<UpstreamName, Provider> {
  const byUrl = new Map<string, Provider>();
  const providers = new Map<UpstreamName, Provider>();
  for (const name of UPSTREAM_NAMES) {
    const upstream = settings.upstreams[name];
    if (!upstream) continue;
    const key = `${upstream.baseUrl} ${upstream.apiKey}`;
    if (!byUrl.has(key)) byUrl.set(key, new Provider(upstream, settings));
    providers.set(name, byUrl.get(key)!);
  }
  return providers;
}

interface Handling {
  settings: GatewaySettings;
  providers: Map<UpstreamName, Provider>;
  record: (row: ModelCallRecord) => Promise<void>;
  budget: GatewayBudget;
  now: () => number;
  log: (line: string) => void;
}

async function handle(req: IncomingMessage, res: ServerResponse, h: Handling): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway');
  if (req.method === 'GET' && url.pathname === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{"ok":true}');
  }
  const [, upstreamName = '', ...rest] = url.pathname.split('/');
  const path = rest.join('/') + url.search;
  const route = routeOf(req.method ?? 'GET', path);
  const provider = h.providers.get(upstreamName as UpstreamName) ?? null;
  const call = new ModelCall(upstreamName || '-', route, provider, h.now(), h.now, h.record);
  const aborter = new AbortController();
  const timeout = setTimeout(() => aborter.abort(new Error('gateway timeout')), h.settings.timeoutMs);
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort(new Error('the caller stopped waiting'));
  });
  try {
    if (!authorized(req, h.settings.key))
      throw new GatewayError('invalid_api_key', 'the gateway key is missing or wrong (Authorization: Bearer <key>)');
    if (!(UPSTREAM_NAMES as readonly string[]).includes(upstreamName))
      throw new GatewayError('unknown_upstream', `no upstream "${upstreamName}": use /${UPSTREAM_NAMES.join('/, /')}/`);
    if (!provider)
      throw new GatewayError(
        'upstream_not_configured',
        `the ${upstreamName} upstream has no provider configured (set ${UPSTREAM_ENV[upstreamName as UpstreamName][0]})`,
      );
    const body = await readBody(req);
    await handleRoute(route, {
      call,
      budget: h.budget,
      settings: h.settings,
      path,
      method: req.method ?? 'GET',
      body,
      contentType: req.headers['content-type'] ?? '',
      res,
      signal: aborter.signal,
    });
  } catch (error) {
    await answerFailure(call, res, error, aborter.signal, h.settings.timeoutMs);
  } finally {
    clearTimeout(timeout);
  }
}

async function answerFailure(
  call: ModelCall,
  res: ServerResponse,
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<void> {
  if (signal.aborted) {
    const reason = (signal.reason as Error)?.message ?? 'aborted';
    const gatewayTimeout = reason === 'gateway timeout';
    const failure = gatewayTimeout
      ? new GatewayError('upstream_timeout', `the model provider did not answer within ${timeoutMs / 1000} s`)
      : new GatewayError('upstream_timeout', `${reason} before the provider answered`);
    await call.end('timeout', failure.status, undefined, failure.message);
    return sendError(res, failure);
  }
  const failure =
    error instanceof GatewayError
      ? error
      : error instanceof AssistantInputError
        ? new GatewayError('invalid_request', error.message, error.field)
        : new GatewayError(
            'upstream_unreachable',
            `the gateway could not complete the call: ${(error as Error).message}`,
          );
  const outcome =
    failure.code === 'context_length_exceeded'
      ? 'refused'
      : failure.code === 'budget_exceeded'
        ? 'over_budget'
        : 'failed';
  // The row is written before the answer: the caller's failure handling reads it (a cap's refusal is no turn failure).
  if (call.provider || failure.code !== 'invalid_api_key')
    await call.end(outcome, failure.status, undefined, failure.message);
  sendError(res, failure);
}

function authorized(req: IncomingMessage, key: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7).trim() : '');
  const wanted = Buffer.from(key);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new GatewayError('invalid_request', `the body is over ${MAX_BODY_BYTES / 1024 / 1024} MiB`, 'body');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
