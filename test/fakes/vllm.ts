// A loopback fake vLLM OpenAI-compatible server: continuous batching of the requests in flight, automatic prefix
// caching, `max_logprobs`, and the logprobs shapes of /v1/chat/completions and /v1/completions. Learnt from
// vllm-project/vllm (v0.11–0.12 era); no code copied. Real behaviours copied, and where from:
// - Logprobs shapes: vllm/entrypoints/openai/protocol.py `ChatCompletionLogProbs` (content[] of {token, logprob,
//   bytes, top_logprobs[] of {token, logprob, bytes}}) and `CompletionLogProbs` ({text_offset, token_logprobs, tokens,
//   top_logprobs: [{token: logprob}]}), built by serving_chat.py `_create_chat_logprobs` and serving_completion.py
//   `_create_completion_logprobs`. Chat's `top_logprobs` and completions' `logprobs` both become
//   SamplingParams.logprobs.
// - The limit: vllm/v1/engine/processor.py `_validate_logprobs`: more than `--max-logprobs` (default 20) is
//   "Requested sample logprobs of N, which is greater than max allowed: 20", a 400 in protocol.py's `ErrorResponse`
//   envelope {"error": {message, type: "BadRequestError", param, code: 400}}.
// - Usage: protocol.py `UsageInfo` {prompt_tokens, total_tokens, completion_tokens, prompt_tokens_details:
//   {cached_tokens}}; the details only with `--enable-prompt-tokens-details` (option `promptTokensDetails`).
// - Batching: vllm/v1/core/sched/scheduler.py `schedule()` takes waiting requests into the running batch, up to
//   `max_num_seqs`, each engine step; a request admitted in a step is prefilled in that step.
// - Prefix caching: vllm/v1/core/kv_cache_manager.py `get_computed_blocks` and block_pool.py `cache_full_blocks`:
//   full blocks (`block_size` 16 tokens) are hashed as a chain (each hash covers every token before it), a prompt
//   reuses its longest run of cached leading blocks, at most prompt length − 1 tokens (the last is recomputed), and
//   a request's full blocks are cached as it is scheduled, so a later request in the same step hits them.
// - Named token ids: `logprob_token_ids` (vllm-project/vllm#43463; chat_completion/protocol.py `to_sampling_params`
//   sets SamplingParams.logprobs to None when it is given; v1/sample/sampler.py `gather_specific_token_logprobs`):
//   the position's logprobs are the sampled token's, then each named id's, whatever their rank; the chat reply lists
//   them as top_logprobs (the sampled token first, once). A logprob of -inf is sent as -9999.0 (serving_chat.py).
//   Option `logprobTokenIds`: "honoured" (default), "ignored" (an older server: top-k as usual), "refused" (a 400
//   naming the field, as a server that forbids unknown fields would answer).
// - POST /tokenize {model, prompt, add_special_tokens} → {count, max_model_len, tokens, token_strs: null}
//   (entrypoints/serve/tokenize/protocol.py `TokenizeResponse`).
// Simplifications: a token is 4 characters (the judge's own estimate), the chat template is Qwen's ChatML for one
// user message, the model is the hash distribution of judge/test/fakes/openai-logprobs.ts over the prompt's labels,
// and one output token is generated.
// Counters for tests (no clocks): in flight, waiting, each step's batch size, prefilled and cached tokens, and how many
// characters of the judge's state (up to its "</state>" close) were prefilled.
// Compute stand-in, for benchmarks only (default off, so tests never wait): with `prefillMsPerToken` and
// `decodeMsPerStep` each engine step lasts (tokens it prefills) × the one + the other (the batch decodes its next
// tokens together, one step for all, as a memory-bound GPU decode does), and the engine takes its next step only
// after it. Time is then proportional to the tokens prefilled and the tokens decoded per sequence.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashTopLogprobs, type FakeTopLogprob } from '../../judge/test/fakes/openai-logprobs';
import { listenOnLoopback, readBody, sendJson } from './http-util';

export const CHARS_PER_TOKEN = 4;
export const BLOCK_TOKENS = 16;
const BLOCK_CHARS = BLOCK_TOKENS * CHARS_PER_TOKEN;
const STATE_CLOSE = '</state>\n\n';

export interface VllmFakeOptions {
  /** --max-logprobs (default 20). */
  maxLogprobs?: number;
  /** --max-num-seqs: most requests in one step's batch (default 256). */
  maxNumSeqs?: number;
  /** --enable-prompt-tokens-details (default true). */
  promptTokensDetails?: boolean;
  /** Steps wait for `resume()` (a test fills the queue first, then lets one step take it). */
  paused?: boolean;
  /** --served-model-name (default "qwen-fake"). */
  model?: string;
  /** How `logprob_token_ids` is treated (default "honoured"). */
  logprobTokenIds?: 'honoured' | 'ignored' | 'refused';
  /** The tokenizer splits "AB" into "A", "B" (default false: 4-character pieces throughout). */
  splitCapitals?: boolean;
  /** Benchmarks' compute stand-in (see the header): milliseconds per prefilled token (default 0: no waiting). */
  prefillMsPerToken?: number;
  /** Benchmarks' compute stand-in: milliseconds per decode step, the whole batch's next tokens (default 0). */
  decodeMsPerStep?: number;
}

export interface VllmFakeStats {
  /** Requests received and not yet answered, now and at most. */
  inFlight: number;
  maxInFlight: number;
  /** Requests waiting for a step. */
  waiting: number;
  /** The number of requests each step prefilled, in order. */
  batches: number[];
  prefilledTokens: number;
  cachedTokens: number;
  /** Characters of the judge's state (prompt start to "</state>") that were prefilled, not taken from the cache. */
  prefilledStateChars: number;
}

export interface VllmRequestRecord {
  route: '/v1/chat/completions' | '/v1/completions';
  /** The prompt the model saw (after the chat template). */
  prompt: string;
  cachedTokens: number;
  body: Record<string, unknown>;
}

export interface VllmFake {
  baseUrl: string;
  stats: VllmFakeStats;
  requests: VllmRequestRecord[];
  /** Lets steps run (after `paused`). */
  resume(): void;
  close(): Promise<void>;
}

interface Pending {
  route: VllmRequestRecord['route'];
  body: Record<string, unknown>;
  prompt: string;
  /** The text the model's distribution is seeded with (the user message, as the OpenAI fake seeds it). */
  seed: string;
  topN: number;
  /** Named token ids, when honoured. */
  named?: number[];
  res: ServerResponse;
}

/** The fake's vocabulary: every 4-character piece of text is one token, numbered as first seen (SGLang's and llama.cpp's fakes share it). */
export class FakeTokenizer {
  private readonly ids = new Map<string, number>();
  private readonly pieces: string[] = [];

  /** `splitCapitals`: a run of capital letters alone ("AB") is one token per letter, as some vocabularies have it. */
  constructor(private readonly splitCapitals = false) {}

  encode(text: string): number[] {
    if (this.splitCapitals && /^[A-Z]{2,}$/.test(text)) return [...text].flatMap((letter) => this.encode(letter));
    const out: number[] = [];
    for (let i = 0; i < text.length; i += CHARS_PER_TOKEN) {
      const piece = text.slice(i, i + CHARS_PER_TOKEN);
      let id = this.ids.get(piece);
      if (id === undefined) {
        id = 1000 + this.pieces.push(piece) - 1;
        this.ids.set(piece, id);
      }
      out.push(id);
    }
    return out;
  }

  decode(id: number): string | undefined {
    return this.pieces[id - 1000];
  }
}

const chatTemplate = (content: string) => `<|im_start|>user\n${content}<|im_end|>\n<|im_start|>assistant\n`;

class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null,
  ) {
    super(message);
  }
}

function logprobsCount(route: Pending['route'], body: Record<string, unknown>): number {
  if (route === '/v1/chat/completions') {
    if (!body.logprobs) return 0;
    return typeof body.top_logprobs === 'number' ? body.top_logprobs : 0;
  }
  return typeof body.logprobs === 'number' ? body.logprobs : 0;
}

function namedIds(body: Record<string, unknown>, treatment: VllmFakeOptions['logprobTokenIds']): number[] | undefined {
  const ids = body.logprob_token_ids;
  if (ids === undefined || ids === null || treatment === 'ignored') return undefined;
  if (treatment === 'refused')
    throw new BadRequest('logprob_token_ids: Extra inputs are not permitted', 'logprob_token_ids');
  if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) {
    throw new BadRequest('logprob_token_ids: Input should be a valid list of integers', 'logprob_token_ids');
  }
  return ids as number[];
}

function parseRequest(route: Pending['route'], body: Record<string, unknown>, maxLogprobs: number) {
  let seed: string;
  let prompt: string;
  if (route === '/v1/chat/completions') {
    const messages = body.messages as { role: string; content: string }[] | undefined;
    if (!Array.isArray(messages) || messages.length === 0) throw new BadRequest('messages: Field required', 'messages');
    seed = messages.map((m) => m.content).join('\n');
    prompt = messages.map((m) => chatTemplate(m.content)).join('');
  } else {
    if (typeof body.prompt !== 'string') throw new BadRequest('prompt: Input should be a valid string', 'prompt');
    seed = prompt = body.prompt;
  }
  const topN = logprobsCount(route, body);
  if (topN > maxLogprobs) {
    throw new BadRequest(
      `Requested sample logprobs of ${topN}, which is greater than max allowed: ${maxLogprobs} ` +
        `(parameter=logprobs, value=${topN})`,
      'logprobs',
    );
  }
  return { seed, prompt, topN };
}

/** The prefix cache: hashes of full blocks, each hash covering every character before the block's end. */
class PrefixCache {
  private readonly blocks = new Set<string>();

  private static hashes(prompt: string): string[] {
    const out: string[] = [];
    let previous = '';
    for (let end = BLOCK_CHARS; end <= prompt.length; end += BLOCK_CHARS) {
      previous = createHash('sha256')
        .update(previous + prompt.slice(end - BLOCK_CHARS, end))
        .digest('hex');
      out.push(previous);
    }
    return out;
  }

  /** Tokens served from the cache (at most all but the last), then the prompt's full blocks cached. */
  admit(prompt: string): number {
    const hashes = PrefixCache.hashes(prompt);
    let hits = 0;
    while (hits < hashes.length && this.blocks.has(hashes[hits])) hits++;
    for (const hash of hashes) this.blocks.add(hash);
    const tokens = Math.ceil(prompt.length / CHARS_PER_TOKEN);
    return Math.min(hits * BLOCK_TOKENS, tokens - 1);
  }
}

export async function startVllmFake(options: VllmFakeOptions = {}): Promise<VllmFake> {
  const maxLogprobs = options.maxLogprobs ?? 20;
  const maxNumSeqs = options.maxNumSeqs ?? 256;
  const model = options.model ?? 'qwen-fake';
  const stats: VllmFakeStats = {
    inFlight: 0,
    maxInFlight: 0,
    waiting: 0,
    batches: [],
    prefilledTokens: 0,
    cachedTokens: 0,
    prefilledStateChars: 0,
  };
  const requests: VllmRequestRecord[] = [];
  const waiting: Pending[] = [];
  const cache = new PrefixCache();
  const tokenizer = new FakeTokenizer(options.splitCapitals);
  let paused = options.paused ?? false;
  let stepping = false;

  /**
   * One engine step: the waiting requests (up to max_num_seqs) prefilled in arrival order and answered, after the
   * step's compute time when the stand-in is on (the engine is busy until then).
   */
  function step(): void {
    if (paused || waiting.length === 0) {
      stepping = false;
      return;
    }
    const batch = waiting.splice(0, maxNumSeqs);
    stats.waiting = waiting.length;
    stats.batches.push(batch.length);
    const cached = batch.map((pending) => cache.admit(pending.prompt));
    const finish = () => {
      batch.forEach((pending, i) => answer(pending, cached[i]));
      stepping = false;
      schedule();
    };
    const prefilled = batch.reduce((sum, p, i) => sum + Math.ceil(p.prompt.length / CHARS_PER_TOKEN) - cached[i], 0);
    const ms = prefilled * (options.prefillMsPerToken ?? 0) + (options.decodeMsPerStep ?? 0);
    if (ms > 0) setTimeout(finish, ms);
    else finish();
  }

  function schedule(): void {
    if (stepping || paused || waiting.length === 0) return;
    stepping = true;
    setImmediate(step);
  }

  function answer(pending: Pending, cachedTokens: number): void {
    const promptTokens = Math.ceil(pending.prompt.length / CHARS_PER_TOKEN);
    const cachedChars = cachedTokens * CHARS_PER_TOKEN;
    const stateEnd = pending.prompt.indexOf(STATE_CLOSE);
    stats.prefilledTokens += promptTokens - cachedTokens;
    stats.cachedTokens += cachedTokens;
    if (stateEnd !== -1) stats.prefilledStateChars += Math.max(0, stateEnd + STATE_CLOSE.length - cachedChars);
    requests.push({ route: pending.route, prompt: pending.prompt, cachedTokens, body: pending.body });
    const top = pending.named
      ? namedLogprobs(hashTopLogprobs(pending.seed, 1000), pending.named, tokenizer)
      : hashTopLogprobs(pending.seed, Math.max(pending.topN, 1));
    const listed = pending.named ? top.length : pending.topN;
    const usage = {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens + 1,
      completion_tokens: 1,
      ...(options.promptTokensDetails === false ? {} : { prompt_tokens_details: { cached_tokens: cachedTokens } }),
    };
    const body =
      pending.route === '/v1/chat/completions'
        ? chatCompletion(model, top, listed, usage)
        : textCompletion(model, top, listed, usage);
    stats.inFlight--;
    sendJson(pending.res, 200, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/tokenize') {
      const { prompt } = JSON.parse(await readBody(req)) as { prompt?: unknown };
      if (typeof prompt !== 'string') {
        const info = { message: 'prompt: Field required', type: 'BadRequestError', param: 'prompt', code: 400 };
        return sendJson(res, 400, { error: info });
      }
      const tokens = tokenizer.encode(prompt);
      return sendJson(res, 200, { count: tokens.length, max_model_len: 32768, tokens, token_strs: null });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', max_model_len: 32768 }] });
    }
    const route = path === '/v1/chat/completions' || path === '/v1/completions' ? path : undefined;
    if (req.method !== 'POST' || !route) {
      return sendJson(res, 404, { error: { message: 'Not Found', type: 'NotFoundError', param: null, code: 404 } });
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    let parsed: ReturnType<typeof parseRequest> & { named?: number[] };
    try {
      parsed = { ...parseRequest(route, body, maxLogprobs), named: namedIds(body, options.logprobTokenIds) };
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      const info = { message: error.message, type: 'BadRequestError', param: error.param, code: 400 };
      return sendJson(res, 400, { error: info });
    }
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    waiting.push({ route, body, res, ...parsed });
    stats.waiting = waiting.length;
    schedule();
  }

  const server = await listenOnLoopback(handle);
  return {
    baseUrl: `${server.url}/v1`,
    stats,
    requests,
    resume() {
      paused = false;
      schedule();
    },
    close: () => server.close(),
  };
}

/** The sampled (likeliest) token, then each named id's logprob from the whole distribution, -9999.0 for none. */
function namedLogprobs(distribution: FakeTopLogprob[], named: number[], tokenizer: FakeTokenizer): FakeTopLogprob[] {
  const sampled = distribution[0];
  const out: FakeTopLogprob[] = [sampled];
  for (const id of named) {
    const token = tokenizer.decode(id) ?? `<unk ${id}>`;
    if (token === sampled.token) continue;
    const entry = distribution.find((t) => t.token === token);
    out.push({ token, logprob: entry ? entry.logprob : -9999.0 });
  }
  return out;
}

const bytesOf = (token: string) => [...Buffer.from(token, 'utf8')];

function chatCompletion(model: string, top: FakeTopLogprob[], topN: number, usage: unknown) {
  const first = top[0];
  return {
    id: `chatcmpl-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 32)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: first.token, tool_calls: [], reasoning_content: null },
        logprobs:
          topN > 0
            ? {
                content: [
                  {
                    token: first.token,
                    logprob: first.logprob,
                    bytes: bytesOf(first.token),
                    top_logprobs: top.slice(0, topN).map((t) => ({ ...t, bytes: bytesOf(t.token) })),
                  },
                ],
              }
            : null,
        finish_reason: 'length',
        stop_reason: null,
      },
    ],
    usage,
    prompt_logprobs: null,
  };
}

function textCompletion(model: string, top: FakeTopLogprob[], topN: number, usage: unknown) {
  const first = top[0];
  return {
    id: `cmpl-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 32)}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        text: first.token,
        logprobs:
          topN > 0
            ? {
                text_offset: [0],
                token_logprobs: [first.logprob],
                tokens: [first.token],
                top_logprobs: [Object.fromEntries(top.slice(0, topN).map((t) => [t.token, t.logprob]))],
              }
            : null,
        finish_reason: 'length',
        stop_reason: null,
        prompt_logprobs: null,
      },
    ],
    usage,
  };
}
