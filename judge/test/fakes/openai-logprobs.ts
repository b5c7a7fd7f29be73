// A loopback OpenAI-compatible server: POST /v1/chat/completions answering one token with top_logprobs.
// Modes:
//   - deterministic (default): pretends to be a model. It reads the answer labels from the prompt's "(X) …" option
//     lines and derives top_logprobs from a SHA-256 of the whole prompt, so the same prompt always gets the same
//     distribution, whatever else is asked. Labels come in variants (bare, " X", lower case) plus a distractor.
//   - scripted: `respond(body, index)` decides each reply: top_logprobs, an HTTP error (e.g. 429 + Retry-After, or
//     budgetExceededReply's 402), a completion without logprobs, or a reply text.
// Providers without logprobs (`logprobs` option), for the deterministic model:
//   - "ignored": Anthropic's OpenAI SDK compatibility layer (docs.anthropic.com/en/api/openai-sdk): `logprobs` and
//     `top_logprobs` are ignored (the choice has no `logprobs` field), `n` must be exactly 1 (else 400), a
//     temperature above 1 is capped at 1.
//   - "null": a server that answers `logprobs: null` (Gemini 3 through its OpenAI layer returns none).
//   - "refused": OpenAI's reasoning models: 400 `unsupported_parameter` naming `logprobs` (and `max_tokens`, which
//     they refuse for `max_completion_tokens`), 400 `unsupported_value` for a temperature other than 1; the error
//     bodies are OpenAI's envelope as those models send it.
//   In each, the model samples its reply's first token from the prompt's hash distribution (labels, a distractor
//   "The" that starts a sentence naming no label, and a lower-case variant), seeded by the request's index.
// Usage as OpenAI reports it (platform.openai.com/docs/guides/prompt-caching): `prompt_tokens_details.cached_tokens`
// on every reply; a prompt of 1024 tokens or more reuses the longest prefix an earlier request had, in 128-token
// steps from 1024 (a token here is 4 characters). Every reported usage is kept in `usages`.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTopLogprob {
  token: string;
  logprob: number;
}

export interface ChatCompletionRequestBody {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  [key: string]: unknown;
}

export type FakeReply =
  | { topLogprobs: FakeTopLogprob[] }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { noLogprobs: true }
  | { text: string };

/** How the fake treats `logprobs` (see the header). */
export type FakeLogprobsSupport = 'returned' | 'ignored' | 'null' | 'refused';

/**
 * Our model gateway's refusal when a spending cap has no room (assistant/src/gateway/errors.ts): HTTP 402 in OpenAI's
 * envelope with the code `budget_exceeded` and a sentence naming the budget and when it resets.
 */
export function budgetExceededReply(message: string): FakeReply {
  return {
    status: 402,
    body: { error: { message, type: 'invalid_request_error', code: 'budget_exceeded', param: null } },
  };
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

const CACHE_MIN_TOKENS = 1024;
const CACHE_STEP_TOKENS = 128;
const CHARS_PER_TOKEN = 4;

/** OpenAI-style prompt caching: prefixes of 1024 + k·128 tokens, remembered from every earlier prompt. */
class PromptCache {
  private readonly prefixes = new Set<string>();

  /** Cached tokens for this prompt, then its prefixes remembered. */
  admit(prompt: string): number {
    let cached = 0;
    const lengths: number[] = [];
    for (let tokens = CACHE_MIN_TOKENS; tokens * CHARS_PER_TOKEN <= prompt.length; tokens += CACHE_STEP_TOKENS) {
      lengths.push(tokens);
    }
    for (const tokens of lengths) {
      if (this.prefixes.has(prompt.slice(0, tokens * CHARS_PER_TOKEN))) cached = tokens;
      else break;
    }
    for (const tokens of lengths) this.prefixes.add(prompt.slice(0, tokens * CHARS_PER_TOKEN));
    return cached;
  }
}

export interface FakeOpenAIOptions {
  respond?: (body: ChatCompletionRequestBody, index: number) => FakeReply | Promise<FakeReply>;
  /** Default "returned". */
  logprobs?: FakeLogprobsSupport;
  /** When set, requests must carry "Authorization: Bearer <apiKey>" (else 401 in OpenAI's error shape). */
  apiKey?: string;
  host?: string;
  port?: number;
}

export interface FakeOpenAI {
  /** The base URL a user would configure, ending in /v1. */
  baseUrl: string;
  /** Every request body received, in arrival order. */
  requests: ChatCompletionRequestBody[];
  /** The Authorization headers received. */
  authorizations: (string | undefined)[];
  /** Each request's X-Request-Id header, in arrival order. */
  requestIds: (string | undefined)[];
  /** Indexes (into `requests`) of requests whose client hung up before the reply (e.g. an aborted call). */
  abandoned: number[];
  /** The `usage` of every successful reply, in reply order. */
  usages: FakeUsage[];
  close(): Promise<void>;
}

/** The labels a prompt offers: every "(X) " at the start of a line after the state, in order. */
export function labelsInPrompt(prompt: string): string[] {
  const afterState = prompt.slice(prompt.lastIndexOf('</state>') + 1);
  return [...afterState.matchAll(/^\((\w+)\) /gm)].map((m) => m[1]);
}

/** Deterministic top_logprobs for a prompt: a pseudo-random distribution over its labels, seeded by the prompt. */
export function hashTopLogprobs(prompt: string, topN = 20): FakeTopLogprob[] {
  const labels = labelsInPrompt(prompt);
  const digest = createHash('sha256').update(prompt).digest();
  const bytes = (i: number) => digest[i % digest.length] + 1;
  // Weights for each label, a distractor, and a case/space variant of the first label.
  const weights = labels.map((_, i) => bytes(i) ** 2);
  const distractor = bytes(31) ** 2 / 8;
  const variant = weights.length > 0 ? weights[0] / 4 : 0;
  const total = weights.reduce((a, b) => a + b, 0) + distractor + variant;
  const entries: FakeTopLogprob[] = labels.map((label, i) => ({ token: label, logprob: Math.log(weights[i] / total) }));
  entries.push({ token: 'The', logprob: Math.log(distractor / total) });
  if (labels.length > 0) entries.push({ token: ` ${labels[0].toLowerCase()}`, logprob: Math.log(variant / total) });
  entries.sort((a, b) => b.logprob - a.logprob);
  return entries.slice(0, topN);
}

/** The logprobs object of a reply: the first token's top_logprobs, or null. */
function logprobsOf(top: FakeTopLogprob[] | undefined, first: string): unknown {
  if (!top) return null;
  return {
    content: [
      {
        token: first,
        logprob: top[0]?.logprob ?? 0,
        bytes: [...Buffer.from(first)],
        top_logprobs: top.map((t) => ({ ...t, bytes: [...Buffer.from(t.token)] })),
      },
    ],
  };
}

const invalid = (message: string, param: string, code: string): FakeReply => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

/** The 400 a provider without logprobs answers this request with, if any. */
function refusalOf(support: FakeLogprobsSupport, body: ChatCompletionRequestBody): FakeReply | undefined {
  if (support === 'ignored' && body.n !== undefined && body.n !== 1) {
    return invalid('n: must be exactly 1', 'n', 'invalid_request_error');
  }
  if (support !== 'refused') return undefined;
  if (body.logprobs !== undefined || body.top_logprobs !== undefined) {
    const param = body.logprobs !== undefined ? 'logprobs' : 'top_logprobs';
    return invalid(
      `Unsupported parameter: '${param}' is not supported with this model.`,
      param,
      'unsupported_parameter',
    );
  }
  if (body.max_tokens !== undefined) {
    return invalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return invalid(
      `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
      'temperature',
      'unsupported_value',
    );
  }
  return undefined;
}

/** A reply sampled from the prompt's hash distribution, seeded by the request index: "B) …", "The answer…". */
export function sampledReply(prompt: string, index: number): string {
  const top = hashTopLogprobs(prompt);
  const seed = createHash('sha256').update(`${index}`).digest().readUInt32BE(0) / 2 ** 32;
  let left = seed * top.reduce((sum, t) => sum + Math.exp(t.logprob), 0);
  for (const { token, logprob } of top) {
    left -= Math.exp(logprob);
    if (left <= 0) return token === 'The' ? 'The answer depends on the state.' : `${token.trim()}) as stated`;
  }
  return `${top[0].token.trim()})`;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: ChatCompletionRequestBody[] = [];
  const authorizations: (string | undefined)[] = [];
  const requestIds: (string | undefined)[] = [];
  const abandoned: number[] = [];
  const usages: FakeUsage[] = [];
  const cache = new PromptCache();
  const send = (
    res: import('node:http').ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    authorizations.push(req.headers.authorization);
    requestIds.push(req.headers['x-request-id'] as string | undefined);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    readJson(req)
      .then(async (raw) => {
        const body = raw as ChatCompletionRequestBody;
        const index = requests.push(body) - 1;
        res.on('close', () => {
          if (!res.writableFinished) abandoned.push(index);
        });
        const prompt = body.messages?.map((m) => m.content).join('\n') ?? '';
        const support = options.logprobs ?? 'returned';
        const refusal = refusalOf(support, body);
        const reply: FakeReply = refusal
          ? refusal
          : options.respond
            ? await options.respond(body, index)
            : support === 'returned' && body.logprobs
              ? { topLogprobs: hashTopLogprobs(prompt, body.top_logprobs ?? 20) }
              : { text: sampledReply(prompt, index) };
        if ('status' in reply) {
          return send(
            res,
            reply.status,
            reply.body ?? { error: { message: `scripted ${reply.status}`, type: 'server_error' } },
            reply.headers,
          );
        }
        const top = 'topLogprobs' in reply ? reply.topLogprobs : undefined;
        const first = 'text' in reply ? reply.text : (top?.[0]?.token ?? 'A');
        // Anthropic's layer sends no `logprobs` field at all; others send null when there are none.
        const omitted = 'text' in reply && support === 'ignored';
        const promptTokens = Math.ceil(prompt.length / CHARS_PER_TOKEN);
        const completionTokens = Math.max(1, Math.ceil(first.length / CHARS_PER_TOKEN));
        const usage: FakeUsage = {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
          prompt_tokens_details: { cached_tokens: cache.admit(prompt) },
        };
        usages.push(usage);
        send(res, 200, {
          id: `chatcmpl-fake-${index}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: first },
              ...(omitted ? {} : { logprobs: logprobsOf(top, first) }),
              finish_reason: 'length',
            },
          ],
          usage,
        });
      })
      .catch((error: Error) =>
        send(res, 400, { error: { message: `bad request: ${error.message}`, type: 'invalid_request_error' } }),
      );
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    requests,
    authorizations,
    requestIds,
    abandoned,
    usages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
