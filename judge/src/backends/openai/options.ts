// The OpenAI-compatible backend's options and how the config file and environment give them, naming the exact
// field on every error.
//   JUDGE_OPENAI_BASE_URL, JUDGE_OPENAI_API_KEY, JUDGE_OPENAI_MODEL, JUDGE_OPENAI_MODEL_ID, JUDGE_OPENAI_CONCURRENCY,
//   JUDGE_OPENAI_SCORING, JUDGE_OPENAI_SAMPLES, JUDGE_OPENAI_SAMPLE_MAX_TOKENS, JUDGE_OPENAI_MIN_COVERAGE,
//   JUDGE_OPENAI_FAILOVER_COOLDOWN_MS
//   replace the file's values.
import { integerSetting, stringSetting, type Env, type Fail, type Raw } from '../../shared/settings';
import { parseBaseUrls } from './upstream';

/** How answers are read: probed (auto), or pinned by the operator. */
export const SCORING_SETTINGS = ['auto', 'top_logprobs', 'samples'] as const;
export type ScoringSetting = (typeof SCORING_SETTINGS)[number];

export interface OpenAIBackendOptions {
  /**
   * e.g. "https://api.openai.com/v1", "http://127.0.0.1:11434/v1" (Ollama), "http://host:8000/v1" (vLLM); several
   * servers of the same model separated by commas are used in order by health (failover).
   */
  baseUrl: string;
  /** The upstream key, from env or the config file; never logged. Local servers may need none. */
  apiKey?: string;
  /** The upstream model name, e.g. "gpt-4.1-mini" or "qwen2.5:7b". */
  upstreamModel: string;
  /** Our pinned id for it, e.g. "judge-openai-gpt-4.1-mini-2026-11-01". */
  id: string;
  description?: string;
  releaseDate?: string;
  /**
   * Upstream requests in flight at once, across all requests. Default: 32 (all questions of a call at once, for
   * serving engines), 1 once the replies show an Ollama (`system_fingerprint: "fp_ollama"`).
   */
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
  /**
   * "auto" (default): logprobs while the upstream returns them, else the sampling fallback (sampling.ts);
   * "top_logprobs": logprobs only (no logprobs → 502 logprobs_unsupported); "samples": the fallback only.
   */
  scoring?: ScoringSetting;
  /** Replies sampled per prompt by the fallback, one request each (default 8). */
  samples?: number;
  /** max_completion_tokens of a sampled reply (default 16; a reasoning model needs room to think first). */
  sampleMaxTokens?: number;
  /** Least coverage (label mass, or labelled share of samples) an answer may have; below it → 502 (default 0). */
  minCoverage?: number;
  /** How long a server that failed (connection, timeout, 5xx) is skipped while another is healthy (default 30 000). */
  failoverCooldownMs?: number;
  /** The clock for the cool-down (default Date.now; tests move it). */
  now?: () => number;
}

/** `file` is the config's backend block (`{kind: "openai", ...}`), each value replaced by its environment variable. */
export function parseOpenAIBackendOptions(file: Raw, env: Env, fail: Fail): OpenAIBackendOptions {
  const text = (value: unknown, field: string, required: boolean) => stringSetting(value, field, required, fail);
  /** The environment's value named by its variable, else the file's named by its field. */
  const setting = (variable: string, key: string): [unknown, string] =>
    env[variable] !== undefined ? [env[variable], variable] : [file[key], `backend.${key}`];
  const integer = (key: string, fallback: number, min = 1) =>
    integerSetting(file[key], `backend.${key}`, fallback, min, fail);
  return {
    baseUrl: baseUrlSetting(...setting('JUDGE_OPENAI_BASE_URL', 'baseUrl'), fail),
    apiKey: text(env.JUDGE_OPENAI_API_KEY ?? file.apiKey, 'backend.apiKey', false),
    upstreamModel: text(env.JUDGE_OPENAI_MODEL ?? file.upstreamModel, 'backend.upstreamModel', true)!,
    id:
      text(env.JUDGE_OPENAI_MODEL_ID ?? file.id, 'backend.id', false) ??
      // Named after the upstream model, without the model gateway's caller suffix ("#job=judge", docs/MODELS.md).
      `judge-openai-${String(env.JUDGE_OPENAI_MODEL ?? file.upstreamModel).split('#')[0]}`,
    description: text(file.description, 'backend.description', false),
    releaseDate: text(file.releaseDate, 'backend.releaseDate', false),
    concurrency: optionalInteger(...setting('JUDGE_OPENAI_CONCURRENCY', 'concurrency'), fail),
    groupSize: integer('groupSize', 15, 2),
    topLogprobs: integer('topLogprobs', 20),
    maxRetries: integer('maxRetries', 3, 0),
    maxRetryAfterMs: integer('maxRetryAfterMs', 30_000, 0),
    timeoutMs: integer('timeoutMs', 60_000),
    scoring: scoringSetting(...setting('JUDGE_OPENAI_SCORING', 'scoring'), fail),
    samples: integerSetting(...setting('JUDGE_OPENAI_SAMPLES', 'samples'), 8, 1, fail),
    sampleMaxTokens: integerSetting(...setting('JUDGE_OPENAI_SAMPLE_MAX_TOKENS', 'sampleMaxTokens'), 16, 1, fail),
    minCoverage: fractionSetting(...setting('JUDGE_OPENAI_MIN_COVERAGE', 'minCoverage'), fail),
    failoverCooldownMs: integerSetting(
      ...setting('JUDGE_OPENAI_FAILOVER_COOLDOWN_MS', 'failoverCooldownMs'),
      30_000,
      0,
      fail,
    ),
  };
}

/** One base URL, or several separated by commas (a list of strings in the file): each an http(s) URL. */
function baseUrlSetting(value: unknown, field: string, fail: Fail): string {
  const joined = Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(',') : value;
  const text = stringSetting(joined, field, true, fail)!;
  const urls = parseBaseUrls(text);
  if (!Array.isArray(urls)) throw fail(field, urls.error);
  return urls.join(',');
}

/** A whole number ≥ 1, or undefined when absent (the backend then decides). */
function optionalInteger(value: unknown, field: string, fail: Fail): number | undefined {
  if (value === undefined || value === '') return undefined;
  return integerSetting(value, field, 1, 1, fail);
}

function scoringSetting(value: unknown, field: string, fail: Fail): ScoringSetting {
  if (value === undefined || value === '') return 'auto';
  if (!(SCORING_SETTINGS as readonly unknown[]).includes(value)) {
    throw fail(field, `must be one of ${SCORING_SETTINGS.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as ScoringSetting;
}

/** A number from 0 to 1 (a decimal string from the environment too); absent or "" is 0. */
export function fractionSetting(value: unknown, field: string, fail: Fail): number {
  if (value === undefined || value === '') return 0;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw fail(field, `must be a number from 0 to 1, got ${JSON.stringify(value)}`);
  }
  return n;
}
