// The OpenAI-compatible upstream: one or more servers of the same model used in order by health (failover), their
// clients, one concurrency limit, and the retry loop every completion goes through.
//
// Why the `openai` client and not @langchain/openai: we need the raw `choices[0].logprobs.content[0].top_logprobs`
// and `usage` of a short completion, nothing of LangChain's message/tool layer; and we run our own retry loop so
// that a 429's Retry-After is honoured but capped (the client would sleep for whatever the server says).
import OpenAI from 'openai';
import { BackendError } from '../../engine/backend';
import { ConcurrencyLimiter } from '../../util/limiter';
import { retryAfterMs } from '../../util/retry-after';

export interface UpstreamSettings {
  /** The servers in order of preference (failover); each serves the same model. */
  baseUrls: string[];
  apiKey?: string;
  concurrency: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  timeoutMs: number;
  /** How long a server that failed (connection, timeout, 5xx) is skipped while another is healthy. */
  cooldownMs: number;
  /** The clock, in ms (injected: tests move it). */
  now: () => number;
}

/** One server: its client, and until when it is skipped after a failure. */
interface Endpoint {
  baseUrl: string;
  root: string;
  client: OpenAI;
  downUntil: number;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export class ChatUpstream {
  private limiter: ConcurrencyLimiter;
  private readonly endpoints: Endpoint[];

  constructor(private readonly settings: UpstreamSettings) {
    if (settings.baseUrls.length === 0) throw new Error('ChatUpstream: no base URL');
    this.limiter = new ConcurrencyLimiter(settings.concurrency);
    this.endpoints = settings.baseUrls.map((baseUrl) => ({
      baseUrl,
      root: serverRoot(baseUrl),
      downUntil: -Infinity,
      client: new OpenAI({
        baseURL: baseUrl,
        apiKey: settings.apiKey || 'not-needed',
        maxRetries: 0,
        timeout: settings.timeoutMs,
      }),
    }));
  }

  /** The server to ask now: the first not cooling down, else the one whose cool-down ends first. */
  private pick(): Endpoint {
    const now = this.settings.now();
    const healthy = this.endpoints.find((e) => e.downUntil <= now);
    return healthy ?? this.endpoints.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
  }

  /**
   * After `endpoint` failed with a server-side error: skip it for the cool-down (when there is another) and say
   * whether another server is healthy to ask at once, without waiting or counting a retry.
   */
  private failOver(endpoint: Endpoint): boolean {
    if (this.endpoints.length === 1) return false;
    const now = this.settings.now();
    endpoint.downUntil = now + this.settings.cooldownMs;
    const next = this.pick();
    return next !== endpoint && next.downUntil <= now;
  }

  /** The server root in use (its base URL without `/v1`), where engine-native routes live. */
  get root(): string {
    return this.pick().root;
  }

  /** Each server in order, and whether it is asked now (not cooling down after a failure). */
  health(): { baseUrl: string; healthy: boolean }[] {
    const now = this.settings.now();
    return this.endpoints.map((e) => ({ baseUrl: e.baseUrl, healthy: e.downUntil <= now }));
  }

  /** Upstream requests allowed in flight at once. */
  get concurrency(): number {
    return this.limiter.limit;
  }

  /** A new limit for the calls that start from now on (those in flight keep their slots). */
  set concurrency(limit: number) {
    if (limit !== this.limiter.limit) this.limiter = new ConcurrencyLimiter(limit);
  }

  /**
   * One completion, retried after 429/408/5xx/connection errors (a spending cap's 402 is not retried). Each attempt
   * takes a slot of the limiter and gives it back when it ends: the waits between attempts hold no slot.
   */
  async complete(
    body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal,
    requestId?: string,
  ): Promise<OpenAI.Chat.ChatCompletion> {
    const { maxRetries, maxRetryAfterMs } = this.settings;
    const headers = requestId ? { 'x-request-id': requestId } : undefined;
    for (let attempt = 0; ;) {
      const endpoint = this.pick();
      const where = `The OpenAI-compatible server at ${endpoint.baseUrl}`;
      try {
        const limiter = this.limiter;
        return await limiter.run(() => endpoint.client.chat.completions.create(body, { signal, headers }), signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        const status = error instanceof OpenAI.APIError ? error.status : undefined;
        const message = error instanceof Error ? error.message : String(error);
        const refusal = budgetRefusal(error, where);
        if (refusal) throw refusal;
        const retryable =
          error instanceof OpenAI.APIConnectionError || status === 429 || status === 408 || (status ?? 0) >= 500;
        if (!retryable) {
          const auth = status === 401 || status === 403;
          throw new BackendError(
            `${where} refused the request (${status ?? 'error'}): ${message}`,
            502,
            auth ? 'upstream_auth_failed' : 'upstream_rejected',
            { cause: error },
          );
        }
        const serverFailed = error instanceof OpenAI.APIConnectionError || (status ?? 0) >= 500;
        if (serverFailed && this.failOver(endpoint)) continue;
        const asked = error instanceof OpenAI.APIError ? retryAfterMs(error.headers as Headers | undefined) : undefined;
        if (attempt++ >= maxRetries) throw gaveUp(error, where, maxRetries, asked);
        if (asked !== undefined && asked > maxRetryAfterMs) {
          throw new BackendError(
            `${where} asked to retry after ${Math.round(asked / 1000)} s, longer than the ` +
              `${maxRetryAfterMs / 1000} s allowed.`,
            503,
            'upstream_rate_limited',
            { retryAfterMs: asked, cause: error },
          );
        }
        const backoff = Math.min(500 * 2 ** (attempt - 1), 8000) * (1 - Math.random() * 0.25);
        await sleep(asked ?? backoff, signal);
      }
    }
  }

  /**
   * One engine-native call (SGLang's /generate, llama.cpp's /completion) at the server root: the same limiter and
   * retries as a completion (429/408/5xx/connection errors), its JSON reply, or a BackendError naming the route.
   */
  async post<T>(path: string, body: unknown, signal: AbortSignal, requestId?: string): Promise<T> {
    const { maxRetries, timeoutMs } = this.settings;
    const headers = {
      'content-type': 'application/json',
      ...this.authorization(),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    };
    for (let attempt = 0; ;) {
      const endpoint = this.pick();
      const where = `The server at ${endpoint.root}${path}`;
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await this.limiter.run(
          () =>
            fetch(`${endpoint.root}${path}`, {
              method: 'POST',
              headers,
              body: JSON.stringify(body),
              signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
            }),
          signal,
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        failure = error;
      }
      if (response?.ok) return (await response.json()) as T;
      const status = response?.status;
      const text = response ? await response.text().catch(() => '') : String(failure);
      const retryable = !response || status === 429 || status === 408 || (status ?? 0) >= 500;
      if (!retryable) {
        const auth = status === 401 || status === 403;
        throw new BackendError(
          `${where} refused the request (${status}): ${text.slice(0, 500)}`,
          502,
          auth ? 'upstream_auth_failed' : 'upstream_rejected',
        );
      }
      if ((!response || (status ?? 0) >= 500) && this.failOver(endpoint)) continue;
      if (attempt++ >= maxRetries) {
        throw new BackendError(
          `${where} failed after ${maxRetries} retries: ${text.slice(0, 500)}`,
          502,
          'upstream_error',
        );
      }
      await sleep(Math.min(500 * 2 ** (attempt - 1), 8000) * (1 - Math.random() * 0.25), signal);
    }
  }

  /** The upstream key as a bearer header, when there is one. */
  authorization(): Record<string, string> {
    return this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {};
  }
}

/**
 * The servers of a base URL setting: one URL or several separated by commas, in order of preference. Each must be an
 * http(s) URL; the error says which entry is not.
 */
export function parseBaseUrls(value: string): string[] | { error: string } {
  const entries = value.split(',').map((entry) => entry.trim());
  const urls: string[] = [];
  for (const [i, entry] of entries.entries()) {
    const which = entries.length > 1 ? `entry ${i + 1} ${JSON.stringify(entry)}` : JSON.stringify(entry);
    if (entry === '') return { error: `has an empty entry (${i + 1}); separate URLs with single commas` };
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return { error: `${which} is not a URL` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `${which} is not an http(s) URL` };
    if (urls.includes(entry)) return { error: `lists ${JSON.stringify(entry)} twice` };
    urls.push(entry);
  }
  return urls;
}

/** The server root of an OpenAI-compatible base URL: "http://h:8000/v1/" → "http://h:8000". */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The error after the last retry. */
function gaveUp(error: unknown, where: string, maxRetries: number, asked: number | undefined): BackendError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new BackendError(`${where} timed out.`, 504, 'upstream_timeout', { cause: error });
  }
  if (error instanceof OpenAI.APIError && error.status === 429) {
    return new BackendError(
      `${where} kept rate-limiting after ${maxRetries} retries: ${message}`,
      503,
      'upstream_rate_limited',
      { retryAfterMs: asked, cause: error },
    );
  }
  return new BackendError(`${where} failed after ${maxRetries} retries: ${message}`, 502, 'upstream_error', {
    cause: error,
  });
}

/**
 * Whether an upstream refusal is about `logprobs`/`top_logprobs` (OpenAI's reasoning models: 400
 * `unsupported_parameter` with `param: "logprobs"`; others name it in the message).
 */
export function refusesLogprobs(error: unknown): boolean {
  const cause = error instanceof BackendError ? error.cause : error;
  if (!(cause instanceof OpenAI.APIError) || cause.status !== 400) return false;
  const param = (cause.error as { param?: unknown } | undefined)?.param;
  if (param === 'logprobs' || param === 'top_logprobs') return true;
  return /logprobs/i.test(cause.message);
}

/**
 * A 402 whose error code is `budget_exceeded`: our model gateway refusing the call because a spending cap has no
 * room. Its message is the gateway's own sentence (which budget is spent, when it resets), not a third party's text,
 * so the caller gets it as it is. Never retried: the cap does not open again within the request.
 */
function budgetRefusal(error: unknown, where: string): BackendError | undefined {
  if (!(error instanceof OpenAI.APIError) || error.status !== 402 || error.code !== 'budget_exceeded') return undefined;
  const said = (error.error as { message?: unknown } | undefined)?.message;
  const sentence = typeof said === 'string' && said.trim() !== '' ? said.trim() : 'A spending cap has no room.';
  return new BackendError(`${where} refused the request (402 budget_exceeded): ${sentence}`, 402, 'budget_exceeded', {
    publicMessage: sentence,
    cause: error,
  });
}
