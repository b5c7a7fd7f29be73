// A loopback fake SGLang server: the native /generate with logprobs, /get_model_info, /tokenize, the radix cache's
// cached_tokens, and an OpenAI-compatible /v1/chat/completions with top_logprobs. Learnt from sgl-project/sglang (no
// code copied). Real behaviours copied, and where from:
// - /generate's body: python/sglang/srt/managers/io_struct.py `GenerateReqInput` {text | input_ids, sampling_params
//   {max_new_tokens, temperature, …}, return_logprob, logprob_start_len, top_logprobs_num, token_ids_logprob,
//   return_text_in_logprobs}; a dataclass, so unknown fields are ignored. Neither text nor input_ids: its
//   ValueError "Either text, input_ids or input_embeds should be provided.", which entrypoints/http_server.py
//   `generate_request` answers as 400 {"error": {"message"}}.
// - The reply: {text, output_ids, meta_info: {id, finish_reason: {type: "length", length}, prompt_tokens,
//   completion_tokens, cached_tokens, output_token_logprobs, output_top_logprobs, output_token_ids_logprobs}}, each
//   logprob list per output position of [logprob, token_id, text] (text null unless return_text_in_logprobs), the
//   named ids in the order asked, −inf clamped to −999999999 (managers/tokenizer_manager.py
//   `detokenize_logprob_tokens`, `add_logprob_to_meta_info`). A list of texts is a batch answered as a list.
// - GET /get_model_info {model_path, tokenizer_path, is_generation, …} (http_server.py `get_model_info`).
// - POST /tokenize {model, prompt, add_special_tokens} → {tokens, count, max_model_len} (entrypoints/openai
//   serving_tokenization.py, the vLLM-style request); errors in its OpenAI `ErrorResponse` {object: "error",
//   message, type, param, code}.
// - cached_tokens: the radix cache (mem_cache/radix_cache.py) matches the longest token prefix of any earlier prompt
//   (page size 1), at most all but the last token.
// Option `tokenIdsLogprob: "ignored"` is an SGLang from before token_ids_logprob (no output_token_ids_logprobs).
// Simplifications: a token is 4 characters (FakeTokenizer, shared with the vLLM fake), one output token whatever
// max_new_tokens, the model is the hash distribution of judge/test/fakes/openai-logprobs.ts seeded by the text as sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashTopLogprobs, type FakeTopLogprob } from '../../judge/test/fakes/openai-logprobs';
import { listenOnLoopback, readBody, sendJson } from './http-util';
import { FakeTokenizer } from './vllm';

export interface SglangFakeOptions {
  /** --served-model-name (default "qwen-fake"). */
  model?: string;
  tokenIdsLogprob?: 'honoured' | 'ignored';
}

export interface SglangRequestRecord {
  route: string;
  body: Record<string, unknown>;
  cachedTokens?: number;
}

export interface SglangFake {
  /** The OpenAI-compatible base URL (`…/v1`); native routes are at its root. */
  baseUrl: string;
  root: string;
  requests: SglangRequestRecord[];
  close(): Promise<void>;
}

const NEG_INF = -999999999.0;
const MAX_MODEL_LEN = 32768;

class ValueError extends Error {}

export async function startSglangFake(options: SglangFakeOptions = {}): Promise<SglangFake> {
  const model = options.model ?? 'qwen-fake';
  const tokenizer = new FakeTokenizer();
  const seen: number[][] = [];
  const requests: SglangRequestRecord[] = [];
  let nextId = 0;

  /** Radix cache: the longest token prefix shared with an earlier prompt, at most all but the last token. */
  function admit(ids: number[]): number {
    let best = 0;
    for (const earlier of seen) {
      let n = 0;
      while (n < earlier.length && n < ids.length && earlier[n] === ids[n]) n++;
      best = Math.max(best, n);
    }
    seen.push(ids);
    return Math.min(best, Math.max(ids.length - 1, 0));
  }

  function entry(distribution: FakeTopLogprob[], token: string, withText: boolean) {
    const found = distribution.find((t) => t.token === token);
    const id = tokenizer.encode(token)[0];
    return [found ? found.logprob : NEG_INF, id, withText ? token : null];
  }

  function generateOne(text: string, body: Record<string, unknown>) {
    const ids = tokenizer.encode(text);
    const cached = admit(ids);
    const distribution = hashTopLogprobs(text, 1000);
    const sampled = distribution[0];
    const withText = body.return_text_in_logprobs === true;
    const meta: Record<string, unknown> = {
      id: `${(nextId++).toString(16).padStart(32, '0')}`,
      finish_reason: { type: 'length', length: 1 },
      prompt_tokens: ids.length,
      completion_tokens: 1,
      cached_tokens: cached,
    };
    if (body.return_logprob === true) {
      meta.output_token_logprobs = [entry(distribution, sampled.token, withText)];
      const k = typeof body.top_logprobs_num === 'number' ? body.top_logprobs_num : 0;
      if (k > 0)
        meta.output_top_logprobs = [distribution.slice(0, k).map((t) => entry(distribution, t.token, withText))];
      const named = body.token_ids_logprob;
      if (Array.isArray(named) && options.tokenIdsLogprob !== 'ignored') {
        meta.output_token_ids_logprobs = [
          named.map((id: number) => {
            const token = tokenizer.decode(id) ?? '';
            const found = distribution.find((t) => t.token === token);
            return [found ? found.logprob : NEG_INF, id, withText ? token : null];
          }),
        ];
      }
    }
    requests.push({ route: '/generate', body, cachedTokens: cached });
    return { text: sampled.token, output_ids: tokenizer.encode(sampled.token), meta_info: meta };
  }

  function generate(body: Record<string, unknown>) {
    let texts: string[] | string;
    if (typeof body.text === 'string' || Array.isArray(body.text)) texts = body.text as string[] | string;
    else if (Array.isArray(body.input_ids)) {
      const decode = (ids: number[]) => ids.map((id) => tokenizer.decode(id) ?? '').join('');
      texts = Array.isArray(body.input_ids[0])
        ? (body.input_ids as number[][]).map(decode)
        : decode(body.input_ids as number[]);
    } else throw new ValueError('Either text, input_ids or input_embeds should be provided.');
    return Array.isArray(texts) ? texts.map((t) => generateOne(t, body)) : generateOne(texts, body);
  }

  function chat(body: Record<string, unknown>) {
    const messages = body.messages as { content: string }[] | undefined;
    const content = Array.isArray(messages) ? messages.map((m) => m.content).join('\n') : '';
    const top = hashTopLogprobs(content, typeof body.top_logprobs === 'number' ? body.top_logprobs : 1);
    const ids = tokenizer.encode(content);
    requests.push({ route: '/v1/chat/completions', body });
    return {
      id: `${(nextId++).toString(16)}`,
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: top[0].token },
          logprobs: body.logprobs
            ? { content: [{ token: top[0].token, logprob: top[0].logprob, top_logprobs: top }] }
            : null,
          finish_reason: 'length',
        },
      ],
      usage: { prompt_tokens: ids.length, completion_tokens: 1, total_tokens: ids.length + 1 },
    };
  }

  const openaiError = (message: string, param: string | null) => ({
    object: 'error',
    message,
    type: 'BadRequest',
    param,
    code: 400,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/get_model_info') {
      return sendJson(res, 200, {
        model_path: `/models/${model}`,
        tokenizer_path: `/models/${model}`,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
      });
    }
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, {});
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', owned_by: 'sglang' }] });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { detail: 'Not Found' });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    if (path === '/tokenize') {
      if (typeof body.prompt !== 'string') return sendJson(res, 400, openaiError('prompt: Field required', 'prompt'));
      const tokens = tokenizer.encode(body.prompt);
      return sendJson(res, 200, { tokens, count: tokens.length, max_model_len: MAX_MODEL_LEN });
    }
    if (path === '/generate') {
      try {
        return sendJson(res, 200, generate(body));
      } catch (error) {
        if (error instanceof ValueError) return sendJson(res, 400, { error: { message: error.message } });
        throw error;
      }
    }
    if (path === '/v1/chat/completions') return sendJson(res, 200, chat(body));
    return sendJson(res, 404, { detail: 'Not Found' });
  }

  const server = await listenOnLoopback(handle);
  return { baseUrl: `${server.url}/v1`, root: server.url, requests, close: () => server.close() };
}
