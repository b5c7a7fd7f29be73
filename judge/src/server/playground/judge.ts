// POST /playground/judge: judging without a key in the open mode, same-origin only, under the playground's own
// rate limit and token quota, through the server's engine and admission queue like POST /v1/systemone.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PreparedJob } from '../../engine/engine';
import { ApiError } from '../../protocol/errors';
import { parseJsonBody, readBody } from '../http';
import { checkOrigin } from './access';
import type { RequestRate, TokenQuota } from './quota';
import type { PlaygroundSettings } from './settings';
import type { PlaygroundContext, PlaygroundLogLine, PlaygroundStatus } from './types';

/** What the open judge works with: the server's context, the settings and the open mode's rate limit and quota. */
export interface OpenJudge {
  context: PlaygroundContext;
  settings: PlaygroundSettings;
  rate: RequestRate;
  quota: TokenQuota;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function tooMany(res: ServerResponse, message: string, retryAfterMs: number): ApiError {
  res.setHeader('retry-after', String(seconds(retryAfterMs)));
  return new ApiError(429, message, 'rate_limit_exceeded');
}

export async function judgeWithoutKey(
  open: OpenJudge,
  state: PlaygroundStatus,
  req: IncomingMessage,
  res: ServerResponse,
  line: PlaygroundLogLine,
  timing: string[],
): Promise<[number, unknown]> {
  admitRequest(open, state, req, res);
  const { limits, engine } = open.context;
  const text = (await readBody(req, limits.maxBodyBytes)).toString('utf8');
  const body = parseJsonBody(text, limits.maxJsonDepth);

  // Bad requests get the API's own answers (422, 400 — over the server's token limits too) before the quota is
  // looked at; only a request that is fine but needs more than the quota has left is the quota's 429.
  const preparing = performance.now();
  const { job, plan } = await engine.prepareWithPlan(body);
  const prepared = performance.now() - preparing;
  const reserved = reserveTokens(open, res, plan.total);
  return answer(open, { job, reserved, prepared }, res, line, timing);
}

/** The open mode on, the page's own origin, a JSON body, and a request left this minute; else 403, 415 or 429. */
function admitRequest(open: OpenJudge, state: PlaygroundStatus, req: IncomingMessage, res: ServerResponse): void {
  if (!state.open) {
    throw new ApiError(
      403,
      `The playground's open mode is off: ${state.reason}. ` +
        'Enter an API key in the page; it then calls POST /v1/systemone.',
      'permission_error',
    );
  }
  checkOrigin(req, open.context.address());
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') {
    throw new ApiError(415, 'Send the body as application/json.', 'unsupported_media_type');
  }
  const taken = open.rate.take();
  if (!taken.ok) {
    throw tooMany(
      res,
      `The open playground allows ${open.settings.requestsPerMinute} requests a minute ` +
        `(playground.requestsPerMinute); try again in ${seconds(taken.retryAfterMs)} s, or enter an API key.`,
      taken.retryAfterMs,
    );
  }
}

/** Reserves the request's input tokens from the hour's quota; 429 when it has not that many left. */
function reserveTokens(open: OpenJudge, res: ServerResponse, total: number): number {
  const { quota, settings } = open;
  const reserved = quota.reserve(total);
  if (reserved >= total) return reserved;
  quota.settle(reserved, 0);
  res.setHeader('x-playground-tokens-left', String(quota.left()));
  throw tooMany(
    res,
    reserved === 0
      ? `The open playground has used its ${settings.tokensPerHour} input tokens for this hour ` +
          `(playground.tokensPerHour); it starts over in ${seconds(quota.resetsInMs())} s. ` +
          'Enter an API key to go on.'
      : `The open playground has ${reserved} of its ${settings.tokensPerHour} input tokens left this hour ` +
          `(playground.tokensPerHour), not enough for this request (about ${total} tokens). Enter an API ` +
          `key, or wait ${seconds(quota.resetsInMs())} s.`,
    quota.resetsInMs(),
  );
}

/** Judges a prepared job through the admission queue; the quota is settled with the tokens really used. */
async function answer(
  open: OpenJudge,
  { job, reserved, prepared }: { job: PreparedJob; reserved: number; prepared: number },
  res: ServerResponse,
  line: PlaygroundLogLine,
  timing: string[],
): Promise<[number, unknown]> {
  const { context, quota } = open;
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
