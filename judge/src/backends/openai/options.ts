// The OpenAI-compatible backend's options and how the config file and environment give them, naming the exact
// field on every error.
//   JUDGE_OPENAI_BASE_URL, JUDGE_OPENAI_API_KEY, JUDGE_OPENAI_MODEL, JUDGE_OPENAI_MODEL_ID replace the file's values.
import { integerSetting, stringSetting, type Env, type Fail, type Raw } from '../../shared/settings';

export interface OpenAIBackendOptions {
  /** e.g. "https://api.openai.com/v1", "http://127.0.0.1:11434/v1" (Ollama), "http://host:8000/v1" (vLLM). */
  baseUrl: string;
  /** The upstream key, from env or the config file; never logged. Local servers may need none. */
  apiKey?: string;
  /** The upstream model name, e.g. "gpt-4.1-mini" or "qwen2.5:7b". */
  upstreamModel: string;
  /** Our pinned id for it, e.g. "judge-openai-gpt-4.1-mini-2026-11-01". */
  id: string;
  description?: string;
  releaseDate?: string;
  /** Upstream requests in flight at once, across all requests (default 4). */
  concurrency?: number;
  /** Options asked in one prompt before grouping (default 15, at most 20). */
  groupSize?: number;
  /** top_logprobs asked for (default 20, the OpenAI maximum). */
  topLogprobs?: number;
  /** Retries after 429/5xx/connection errors (default 3). */
  maxRetries?: number;
  /** Longest Retry-After honoured, in ms (default 30 000); longer waits fail with 503. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout in ms (default 60 000). */
  timeoutMs?: number;
}

/** `file` is the config's backend block (`{kind: "openai", ...}`), each value replaced by its environment variable. */
export function parseOpenAIBackendOptions(file: Raw, env: Env, fail: Fail): OpenAIBackendOptions {
  const text = (value: unknown, field: string, required: boolean) => stringSetting(value, field, required, fail);
  const integer = (key: string, fallback: number, min = 1) =>
    integerSetting(file[key], `backend.${key}`, fallback, min, fail);
  return {
    baseUrl: text(env.JUDGE_OPENAI_BASE_URL ?? file.baseUrl, 'backend.baseUrl', true)!,
    apiKey: text(env.JUDGE_OPENAI_API_KEY ?? file.apiKey, 'backend.apiKey', false),
    upstreamModel: text(env.JUDGE_OPENAI_MODEL ?? file.upstreamModel, 'backend.upstreamModel', true)!,
    id:
      text(env.JUDGE_OPENAI_MODEL_ID ?? file.id, 'backend.id', false) ??
      // Named after the upstream model, without the model gateway's caller suffix ("#job=judge", docs/MODELS.md).
      `judge-openai-${String(env.JUDGE_OPENAI_MODEL ?? file.upstreamModel).split('#')[0]}`,
    description: text(file.description, 'backend.description', false),
    releaseDate: text(file.releaseDate, 'backend.releaseDate', false),
    concurrency: integer('concurrency', 4),
    groupSize: integer('groupSize', 15, 2),
    topLogprobs: integer('topLogprobs', 20),
    maxRetries: integer('maxRetries', 3, 0),
    maxRetryAfterMs: integer('maxRetryAfterMs', 30_000, 0),
    timeoutMs: integer('timeoutMs', 60_000),
  };
}
