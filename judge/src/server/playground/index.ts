// The playground: GET /playground, a single static page (assets/ next to this file, copied to dist by the build)
// for trying questions against this server, and the routes it uses:
//   GET  /playground/config  whether the page may judge without a key, and the open mode's limits (no key needed)
//   POST /playground/judge   judge without a key: only when the open mode is on (403 otherwise, saying why),
//                            under its own rate limit and token quota, same-origin only, never a way around keys
// With a key the page calls POST /v1/systemone (and GET /v1/models) like any client.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ServerLimits } from '../limits';
import { DEFAULT_ALIAS, type JudgeEngine } from '../../engine/engine';
import { ApiError } from '../../protocol/errors';
import { parseJsonBody, readBody } from '../http';
import { RequestRate, TokenQuota, type Clock } from './quota';
import { DEFAULT_PLAYGROUND, type PlaygroundSettings } from './settings';

export { DEFAULT_PLAYGROUND, readPlaygroundSettings, type PlaygroundSettings } from './settings';

export const PLAYGROUND_PATH = '/playground';

const ASSETS: Record<string, { file: string; type: string }> = {
  [PLAYGROUND_PATH]: { file: 'index.html', type: 'text/html; charset=utf-8' },
  [`${PLAYGROUND_PATH}/app.js`]: { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  [`${PLAYGROUND_PATH}/app.css`]: { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** What the page (and the serve command) learn about the open mode. */
export interface PlaygroundStatus {
  enabled: boolean;
  open: boolean;
  /** Why the open mode is on or off, as a sentence fragment. */
  reason: string;
}

export interface PlaygroundContext {
  settings?: Partial<PlaygroundSettings>;
  /** The server's engine: the same validation, token limits and answers as POST /v1/systemone. */
  engine: JudgeEngine;
  limits: ServerLimits;
  /** The server's in-flight requests, aborted on a forced shutdown (a request's ticket, or a controller). */
  inFlight: Set<{ abort(reason?: unknown): void }>;
  /** Runs a judging task through the server's one admission queue (server/admission.ts). */
  admit: <T>(task: (signal: AbortSignal) => Promise<T>, signal: AbortSignal) => Promise<T>;
  /** The address the server listens on (read on first use). */
  address: () => AddressInfo | string | null;
  now?: Clock;
}

export interface Playground {
  /** Whether a path is the playground's (false for every path when it is disabled). */
  handles(path: string): boolean;
  route(
    req: IncomingMessage,
    res: ServerResponse,
    line: PlaygroundLogLine,
    timing: string[],
  ): Promise<[number, unknown]>;
  status(): PlaygroundStatus;
}

/** The fields of the server's log line the playground fills in. */
export interface PlaygroundLogLine {
  request_id: string;
  path: string;
  model?: string;
  questions?: number;
  input_tokens?: number;
  output_tokens?: number;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === '::1' || bare === 'localhost') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** The host name of a Host header, without the port. */
function hostName(header: string | undefined): string {
  if (!header) return '';
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return colon === -1 ? header : header.slice(0, colon);
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createPlayground(context: PlaygroundContext): Playground {
  const settings: PlaygroundSettings = { ...DEFAULT_PLAYGROUND, ...(context.settings ?? {}) };
  const now = context.now ?? Date.now;
  const rate = new RequestRate(settings.requestsPerMinute, 60_000, now);
  const quota = new TokenQuota(settings.tokensPerHour, 3_600_000, now);
  const assetDir = path.join(__dirname, 'assets');
  const cache = new Map<string, Buffer>();
  let decided: PlaygroundStatus | undefined;

  function status(): PlaygroundStatus {
    if (decided) return decided;
    const address = context.address();
    const listening = typeof address === 'string' ? address : (address?.address ?? '');
    const loopback = typeof address !== 'string' && isLoopbackAddress(listening);
    if (!settings.enabled) return (decided = { enabled: false, open: false, reason: 'playground.enabled is false' });
    if (settings.open === true) decided = { enabled: true, open: true, reason: 'playground.open is true' };
    else if (settings.open === false) decided = { enabled: true, open: false, reason: 'playground.open is false' };
    else if (loopback) decided = { enabled: true, open: true, reason: `the server listens on loopback (${listening})` };
    else {
      decided = {
        enabled: true,
        open: false,
        reason:
          `the server listens on ${listening || 'a non-loopback address'}, not on loopback; ` +
          'set playground.open (or JUDGE_PLAYGROUND_OPEN) to true to allow judging without a key',
      };
    }
    return decided;
  }

  async function asset(res: ServerResponse, line: PlaygroundLogLine, routePath: string): Promise<[number, unknown]> {
    const { file, type } = ASSETS[routePath];
    let content = cache.get(file);
    if (!content) {
      try {
        content = await readFile(path.join(assetDir, file));
      } catch {
        throw new ApiError(
          500,
          `The playground's ${file} is missing from ${assetDir}; rebuild the package.`,
          'internal_error',
        );
      }
      cache.set(file, content);
    }
    res.writeHead(200, {
      'content-type': type,
      'content-length': content.length,
      'x-request-id': line.request_id,
      ...SECURITY_HEADERS,
    });
    res.end(content);
    return [200, undefined];
  }

  /** Same-origin only, and (on loopback) only under a loopback host name: no cross-site or DNS-rebinding use. */
  function checkOrigin(req: IncomingMessage): void {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new ApiError(
        403,
        'The playground only judges for its own page (a cross-site request was refused).',
        'permission_error',
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`) {
      throw new ApiError(
        403,
        'The playground only judges for its own page (the Origin is another site).',
        'permission_error',
      );
    }
    const address = context.address();
    if (typeof address !== 'string' && isLoopbackAddress(address?.address ?? '')) {
      if (!isLoopbackAddress(hostName(req.headers.host))) {
        throw new ApiError(
          403,
          'The open playground answers only under a loopback host name (localhost, 127.0.0.1, [::1]).',
          'permission_error',
        );
      }
    }
  }

  function tooMany(res: ServerResponse, message: string, retryAfterMs: number): ApiError {
    res.setHeader('retry-after', String(seconds(retryAfterMs)));
    return new ApiError(429, message, 'rate_limit_exceeded');
  }

  async function judge(
    req: IncomingMessage,
    res: ServerResponse,
    line: PlaygroundLogLine,
    timing: string[],
  ): Promise<[number, unknown]> {
    const state = status();
    if (!state.open) {
      throw new ApiError(
        403,
        `The playground's open mode is off: ${state.reason}. ` +
          'Enter an API key in the page; it then calls POST /v1/systemone.',
        'permission_error',
      );
    }
    checkOrigin(req);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json') {
      throw new ApiError(415, 'Send the body as application/json.', 'unsupported_media_type');
    }
    const taken = rate.take();
    if (!taken.ok) {
      throw tooMany(
        res,
        `The open playground allows ${settings.requestsPerMinute} requests a minute ` +
          `(playground.requestsPerMinute); try again in ${seconds(taken.retryAfterMs)} s, or enter an API key.`,
        taken.retryAfterMs,
      );
    }
    const text = (await readBody(req, context.limits.maxBodyBytes)).toString('utf8');
    const body = parseJsonBody(text, context.limits.maxJsonDepth);

    // Bad requests get the API's own answers (422, 400 — over the server's token limits too) before the quota is
    // looked at; only a request that is fine but needs more than the quota has left is the quota's 429.
    const preparing = performance.now();
    const { job, plan } = await context.engine.prepareWithPlan(body);
    const prepared = performance.now() - preparing;
    const reserved = quota.reserve(plan.total);
    if (reserved < plan.total) {
      quota.settle(reserved, 0);
      res.setHeader('x-playground-tokens-left', String(quota.left()));
      throw tooMany(
        res,
        reserved === 0
          ? `The open playground has used its ${settings.tokensPerHour} input tokens for this hour ` +
              `(playground.tokensPerHour); it starts over in ${seconds(quota.resetsInMs())} s. ` +
              'Enter an API key to go on.'
          : `The open playground has ${reserved} of its ${settings.tokensPerHour} input tokens left this hour ` +
              `(playground.tokensPerHour), not enough for this request (about ${plan.total} tokens). Enter an API ` +
              `key, or wait ${seconds(quota.resetsInMs())} s.`,
        quota.resetsInMs(),
      );
    }

    const controller = new AbortController();
    context.inFlight.add(controller);
    res.on('close', () => {
      if (res.writableFinished) return;
      const gone = 'The client closed the connection before the answer.';
      controller.abort(new ApiError(499, gone, 'client_closed_request'));
    });
    let used = 0;
    const queued = performance.now();
    try {
      // The server's one admission queue, as for POST /v1/systemone: a full queue is a 503 with retry-after.
      const { response } = await context.admit(async (signal) => {
        const started = performance.now();
        timing.push(`queue;dur=${(started - queued).toFixed(2)}`);
        const outcome = await context.engine.answer(job, signal);
        timing.push(`engine;dur=${(prepared + performance.now() - started).toFixed(2)}`);
        return outcome;
      }, controller.signal);
      used = response.usage.input_tokens;
      line.model = response.model;
      line.questions = Object.keys(response.answers).length;
      line.input_tokens = response.usage.input_tokens;
      line.output_tokens = response.usage.output_tokens;
      return [200, response];
    } finally {
      context.inFlight.delete(controller);
      quota.settle(reserved, used);
      res.setHeader('x-playground-tokens-left', String(quota.left()));
    }
  }

  return {
    handles: (routePath) =>
      settings.enabled && (routePath === PLAYGROUND_PATH || routePath.startsWith(`${PLAYGROUND_PATH}/`)),
    status,
    async route(req, res, line, timing) {
      const routePath = line.path;
      if (routePath === `${PLAYGROUND_PATH}/judge`) {
        if (req.method !== 'POST') throw new ApiError(405, 'Use POST /playground/judge.', 'method_not_allowed');
        return judge(req, res, line, timing);
      }
      if (req.method !== 'GET') throw new ApiError(405, `Use GET ${routePath}.`, 'method_not_allowed');
      if (routePath === `${PLAYGROUND_PATH}/config`) {
        const state = status();
        return [
          200,
          {
            open: state.open,
            reason: state.reason,
            defaultModel: DEFAULT_ALIAS,
            limits: { requestsPerMinute: settings.requestsPerMinute, tokensPerHour: settings.tokensPerHour },
            ...(state.open ? { tokensLeft: quota.left(), models: context.engine.listModels() } : {}),
          },
        ];
      }
      if (Object.hasOwn(ASSETS, routePath)) return asset(res, line, routePath);
      throw new ApiError(404, `No route ${routePath}.`, 'not_found');
    },
  };
}
