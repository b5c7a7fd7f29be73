// Engine-native scoring routes beside the OpenAI-compatible ones, found by the probe:
// - SGLang (python/sglang/srt/entrypoints/http_server.py): GET /get_model_info answers {model_path, …}; POST /generate
//   takes {text, sampling_params, return_logprob, top_logprobs_num, token_ids_logprob, return_text_in_logprobs}
//   (managers/io_struct.py GenerateReqInput) and returns meta_info.output_token_ids_logprobs[position] as
//   [logprob, token_id, text] in the order of the named ids, output_top_logprobs likewise for the top-k, and
//   prompt_tokens, cached_tokens, completion_tokens (managers/tokenizer_manager.py).
// - llama.cpp (tools/server/README.md, server.cpp): GET /props answers {default_generation_settings, total_slots, …};
//   POST /completion {prompt, n_predict, n_probs} returns completion_probabilities[position] = {id, token, bytes,
//   logprob, top_logprobs: [{id, token, bytes, logprob}]} (the shape since ggml-org/llama.cpp#10783; before it,
//   `probs: [{tok_str, prob}]`, which is not read), tokens_evaluated and timings {prompt_n, cache_n, predicted_n}.
// Both take the rendered prompt as raw text (no chat template): it ends in the answer cue, a completion prompt.
import type { QuestionScores } from '../../engine/backend';
import type { UpstreamTokens } from '../../keys/types';
import { foldTopLogprobs, type TopLogprob } from './fold';

export type ServingEngine = { engine: 'sglang' } | { engine: 'llamacpp'; slots?: number } | { engine: 'other' };

/** Which engine serves at `root`, from a route only it has (SGLang first); "other" when neither answers. */
export async function identifyEngine(
  root: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ServingEngine> {
  const read = async (path: string): Promise<Record<string, unknown> | undefined> => {
    try {
      const response = await fetch(`${root}${path}`, {
        headers,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      if (!response.ok) return undefined;
      const body = (await response.json()) as unknown;
      return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      return undefined;
    }
  };
  const sglang = await read('/get_model_info');
  if (typeof sglang?.model_path === 'string') return { engine: 'sglang' };
  const llamacpp = await read('/props');
  if (llamacpp?.default_generation_settings && typeof llamacpp.default_generation_settings === 'object') {
    const slots = llamacpp.total_slots;
    return {
      engine: 'llamacpp',
      ...(Number.isInteger(slots) && (slots as number) > 0 ? { slots: slots as number } : {}),
    };
  }
  return { engine: 'other' };
}

/** One position of SGLang's logprob lists: [logprob, token id, text or null]. */
type SglangLogprob = [number, number, string | null];

export interface SglangGenerateReply {
  text?: string;
  meta_info?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    cached_tokens?: number;
    output_top_logprobs?: SglangLogprob[][];
    output_token_ids_logprobs?: SglangLogprob[][];
  };
}

/** SGLang's /generate body: one greedy token, the top-k, and the named label ids when given. */
export function sglangRequest(prompt: string, topLogprobs: number, ids?: number[]) {
  return {
    text: prompt,
    sampling_params: { max_new_tokens: 1, temperature: 0 },
    return_logprob: true,
    logprob_start_len: -1,
    top_logprobs_num: topLogprobs,
    return_text_in_logprobs: true,
    ...(ids ? { token_ids_logprob: ids } : {}),
  };
}

/** SGLang clamps −inf to −999999999; such a label has no mass. */
const logprobOf = (value: number) => (value <= -1e8 ? -Infinity : value);

/**
 * The labels' scores from a /generate reply: by the named ids when `ids` are given (exact: each label's own
 * logprob), else folded from the top-k. Undefined when the reply has neither.
 */
export function sglangScores(reply: SglangGenerateReply, labels: string[], ids?: number[]): FoldedReply | undefined {
  const meta = reply.meta_info;
  const named = meta?.output_token_ids_logprobs?.[0];
  if (ids && Array.isArray(named) && named.length > 0) {
    const byId = new Map(named.map(([logprob, id]) => [id, logprobOf(logprob)]));
    if (!ids.every((id) => byId.has(id))) return undefined;
    const top = labels.map((token, i) => ({ token, logprob: byId.get(ids[i])! }));
    return { ...folded(top, labels), exact: true };
  }
  const top = meta?.output_top_logprobs?.[0];
  if (!Array.isArray(top) || top.length === 0) return undefined;
  const listed = top.map(([logprob, , text]) => ({ token: text ?? '', logprob: logprobOf(logprob) }));
  return { ...folded(listed, labels), exact: false };
}

export function sglangTokens(reply: SglangGenerateReply): UpstreamTokens {
  const meta = reply.meta_info ?? {};
  return {
    promptTokens: meta.prompt_tokens ?? 0,
    cachedTokens: meta.cached_tokens ?? 0,
    outputTokens: meta.completion_tokens ?? 0,
  };
}

export interface LlamacppCompletionReply {
  completion_probabilities?: { top_logprobs?: { id: number; token: string; logprob: number }[] }[];
  tokens_evaluated?: number;
  tokens_predicted?: number;
  timings?: { prompt_n?: number; cache_n?: number; predicted_n?: number };
}

/** Tokens llama.cpp lists per position: enough that labels far down the list still come back (coverage says). */
export const LLAMACPP_N_PROBS = 100;

/** llama.cpp's /completion body: one token, its top `n_probs` before sampling, the slot's prompt cache kept. */
export function llamacppRequest(prompt: string, labels: number) {
  return {
    prompt,
    n_predict: 1,
    n_probs: Math.max(LLAMACPP_N_PROBS, labels * 4),
    temperature: 0,
    cache_prompt: true,
  };
}

export function llamacppScores(reply: LlamacppCompletionReply, labels: string[]): FoldedReply | undefined {
  const top = reply.completion_probabilities?.[0]?.top_logprobs;
  if (!Array.isArray(top) || top.length === 0) return undefined;
  return { ...folded(top, labels), exact: false };
}

export function llamacppTokens(reply: LlamacppCompletionReply): UpstreamTokens {
  const timings = reply.timings ?? {};
  const cached = timings.cache_n ?? 0;
  return {
    promptTokens: timings.prompt_n !== undefined ? timings.prompt_n + cached : (reply.tokens_evaluated ?? 0),
    cachedTokens: cached,
    outputTokens: timings.predicted_n ?? reply.tokens_predicted ?? 0,
  };
}

export interface FoldedReply {
  scores: QuestionScores;
  /** Every label was read by its own id. */
  exact: boolean;
}

function folded(top: TopLogprob[], labels: string[]): Omit<FoldedReply, 'exact'> {
  const { logprobs, coveredMass } = foldTopLogprobs(top, labels);
  return { scores: { logprobs, coveredMass } };
}
