// A loopback fake llama.cpp server (llama-server): the native /completion with `n_probs`, /tokenize, /props, its
// slots and each slot's prompt cache. Learnt from ggml-org/llama.cpp tools/server (README.md, server.cpp, utils.hpp);
// no code copied. Real behaviours copied, and where from:
// - POST /completion {prompt, n_predict, n_probs, post_sampling_probs, cache_prompt (default true), …}; unknown fields
//   are ignored. The reply {index, content, tokens, id_slot, stop, model, tokens_predicted, tokens_evaluated, prompt,
//   has_new_line, truncated, stop_type: "limit", stopping_word, tokens_cached, timings: {cache_n, prompt_n,
//   predicted_n, …}, completion_probabilities}. completion_probabilities has one entry per generated token,
//   {id, token, bytes, logprob, top_logprobs: [{id, token, bytes, logprob}]} of the top `n_probs` before sampling —
//   the shape since ggml-org/llama.cpp#10783 (Dec 2024; before it `probs: [{tok_str, prob}]`); with
//   `post_sampling_probs` it is {…, prob, top_probs: [{…, prob}]} instead.
// - No prompt: 400 {"error": {code: 400, message: "[json.exception.out_of_range.403] key 'prompt' not found", type:
//   "invalid_request_error"}} (nlohmann::json's at() caught by the server's handler, as a live server answers).
// - POST /tokenize {content, add_special, with_pieces} → {tokens: [ids]} (with_pieces: [{id, piece}]).
// - GET /props {default_generation_settings, total_slots, model_path, chat_template, build_info}; GET /health.
// - Slots (`--parallel`, option `slots`, default 1): a request takes a free slot or waits; a slot keeps its last
//   prompt's tokens and reuses their common prefix with the next prompt (timings.cache_n; prompt_n the rest).
// Compute stand-in, for benchmarks only (default off, so tests never wait): with `prefillMsPerToken` and
// `decodeMsPerToken` a request holds its slot for (prompt_n) × the one + (predicted_n) × the other milliseconds, so
// time is proportional to the tokens computed, as on a CPU.
// Simplifications: a token is 4 characters (FakeTokenizer, shared with the vLLM fake), one token is generated, the
// model is the hash distribution of judge/test/fakes/openai-logprobs.ts seeded by the prompt; the OpenAI-compatible
// routes are not faked here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashTopLogprobs } from '../../judge/test/fakes/openai-logprobs';
import { listenOnLoopback, readBody, sendJson } from './http-util';
import { FakeTokenizer } from './vllm';

export interface LlamacppFakeOptions {
  /** --parallel: slots (default 1). */
  slots?: number;
  /** --alias (default "qwen-fake.gguf"). */
  model?: string;
  /** Benchmarks' compute stand-in (see the header): milliseconds per prompt token evaluated (default 0). */
  prefillMsPerToken?: number;
  /** Benchmarks' compute stand-in: milliseconds per generated token (default 0). */
  decodeMsPerToken?: number;
}

export interface LlamacppRequestRecord {
  route: string;
  body: Record<string, unknown>;
  cacheN?: number;
}

export interface LlamacppFake {
  /** The OpenAI-compatible base URL (`…/v1`); native routes are at its root. */
  baseUrl: string;
  root: string;
  requests: LlamacppRequestRecord[];
  stats: { inFlight: number; maxInFlight: number };
  close(): Promise<void>;
}

const bytesOf = (token: string) => [...Buffer.from(token, 'utf8')];

export async function startLlamacppFake(options: LlamacppFakeOptions = {}): Promise<LlamacppFake> {
  const model = options.model ?? 'qwen-fake.gguf';
  const tokenizer = new FakeTokenizer();
  const slots: number[][] = Array.from({ length: options.slots ?? 1 }, () => []);
  const busy = slots.map(() => false);
  const waiting: (() => void)[] = [];
  const requests: LlamacppRequestRecord[] = [];
  const stats = { inFlight: 0, maxInFlight: 0 };

  async function takeSlot(): Promise<number> {
    for (;;) {
      const free = busy.indexOf(false);
      if (free !== -1) {
        busy[free] = true;
        return free;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  }

  function complete(body: Record<string, unknown>, slot: number) {
    const prompt = body.prompt as string;
    const ids = tokenizer.encode(prompt);
    const previous = slots[slot];
    let common = 0;
    if (body.cache_prompt !== false) while (common < previous.length && previous[common] === ids[common]) common++;
    const cacheN = Math.min(common, ids.length - 1);
    slots[slot] = ids;
    const nProbs = typeof body.n_probs === 'number' ? body.n_probs : 0;
    const distribution = hashTopLogprobs(prompt, 1000);
    const sampled = distribution[0];
    const entry = (t: { token: string; logprob: number }) =>
      body.post_sampling_probs === true
        ? { id: tokenizer.encode(t.token)[0], token: t.token, bytes: bytesOf(t.token), prob: Math.exp(t.logprob) }
        : { id: tokenizer.encode(t.token)[0], token: t.token, bytes: bytesOf(t.token), logprob: t.logprob };
    const listed = distribution.slice(0, nProbs).map(entry);
    const probabilities =
      nProbs > 0
        ? [
            body.post_sampling_probs === true
              ? { ...entry(sampled), top_probs: listed }
              : { ...entry(sampled), top_logprobs: listed },
          ]
        : undefined;
    requests.push({ route: '/completion', body, cacheN });
    return {
      index: 0,
      content: sampled.token,
      tokens: [],
      id_slot: slot,
      stop: true,
      model,
      tokens_predicted: 1,
      tokens_evaluated: ids.length,
      prompt,
      has_new_line: false,
      truncated: false,
      stop_type: 'limit',
      stopping_word: '',
      tokens_cached: ids.length + 1,
      timings: { cache_n: cacheN, prompt_n: ids.length - cacheN, predicted_n: 1 },
      ...(probabilities ? { completion_probabilities: probabilities } : {}),
    };
  }

  const invalid = (message: string) => ({ error: { code: 400, message, type: 'invalid_request_error' } });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/props') {
      return sendJson(res, 200, {
        default_generation_settings: { n_ctx: 8192, params: { n_predict: -1, temperature: 0.8, n_probs: 0 } },
        total_slots: slots.length,
        model_path: `/models/${model}`,
        chat_template: '',
        build_info: 'b0000-fake',
      });
    }
    if (req.method !== 'POST')
      return sendJson(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    if (path === '/tokenize') {
      if (typeof body.content !== 'string')
        return sendJson(res, 400, invalid("[json.exception.out_of_range.403] key 'content' not found"));
      const tokens = tokenizer.encode(body.content);
      const pieces = tokens.map((id) => ({ id, piece: tokenizer.decode(id) }));
      return sendJson(res, 200, { tokens: body.with_pieces === true ? pieces : tokens });
    }
    if (path === '/completion' || path === '/completions') {
      if (typeof body.prompt !== 'string')
        return sendJson(res, 400, invalid("[json.exception.out_of_range.403] key 'prompt' not found"));
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      const slot = await takeSlot();
      // One engine step per answer: the slot stays busy until the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      const reply = complete(body, slot);
      const { prompt_n: promptN, predicted_n: predictedN } = reply.timings;
      const ms = promptN * (options.prefillMsPerToken ?? 0) + predictedN * (options.decodeMsPerToken ?? 0);
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      busy[slot] = false;
      stats.inFlight--;
      waiting.shift()?.();
      return sendJson(res, 200, reply);
    }
    return sendJson(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
  }

  const server = await listenOnLoopback(handle);
  return { baseUrl: `${server.url}/v1`, root: server.url, requests, stats, close: () => server.close() };
}
