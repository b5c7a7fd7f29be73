// A loopback OpenAI-compatible server: POST /v1/chat/completions answering one token with top_logprobs.
// Modes:
//   - deterministic (default): pretends to be a model. It reads the answer labels from the prompt's "(X) …" option
//     lines and derives top_logprobs from a SHA-256 of the whole prompt, so the same prompt always gets the same
//     distribution, whatever else is asked. Labels come in variants (bare, " X", lower case) plus a distractor.
//   - scripted: `respond(body, index)` decides each reply: top_logprobs, an HTTP error (e.g. 429 + Retry-After, or
//     budgetExceededReply's 402), or a completion without logprobs.
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
  | { noLogprobs: true };

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

export interface FakeOpenAIOptions {
  respond?: (body: ChatCompletionRequestBody, index: number) => FakeReply | Promise<FakeReply>;
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
  /** Indexes (into `requests`) of requests whose client hung up before the reply (e.g. an aborted call). */
  abandoned: number[];
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
  const abandoned: number[] = [];
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
        const reply: FakeReply = options.respond
          ? await options.respond(body, index)
          : { topLogprobs: hashTopLogprobs(prompt, body.top_logprobs ?? 20) };
        if ('status' in reply) {
          return send(
            res,
            reply.status,
            reply.body ?? { error: { message: `scripted ${reply.status}`, type: 'server_error' } },
            reply.headers,
          );
        }
        const top = 'topLogprobs' in reply ? reply.topLogprobs : undefined;
        const first = top?.[0]?.token ?? 'A';
        send(res, 200, {
          id: `chatcmpl-fake-${index}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: first },
              logprobs: top
                ? {
                    content: [
                      {
                        token: first,
                        logprob: top[0]?.logprob ?? 0,
                        bytes: [...Buffer.from(first)],
                        top_logprobs: top.map((t) => ({ ...t, bytes: [...Buffer.from(t.token)] })),
                      },
                    ],
                  }
                : null,
              finish_reason: 'length',
            },
          ],
          usage: {
            prompt_tokens: Math.ceil(prompt.length / 4),
            completion_tokens: 1,
            total_tokens: Math.ceil(prompt.length / 4) + 1,
          },
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
    abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
