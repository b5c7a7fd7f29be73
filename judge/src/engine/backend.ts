// The one interface every scoring backend implements: given a rendered request, return for each
// question one distribution over its options (as log-probabilities), read from a model without generating text.
import type { UpstreamTokens } from '../keys/types';
import { ApiError } from '../protocol/errors';
import type { Question, QuestionType, SystemOneRequest } from '../protocol/types';

/** A question after validation and rendering. */
export interface RenderedQuestion {
  /** The caller's question name, byte for byte. */
  name: string;
  type: QuestionType;
  /** The question as the caller sent it (normalised by validation). */
  question: Question;
  /**
   * The caller's option keys in order: noul → ["true", "false"]; choice → the criteria keys;
   * score → ["0", "1", …].
   */
  options: string[];
  /** The answer label for each option, index-aligned with `options` (e.g. "Yes"/"No", "A"…, "0"…). */
  labels: string[];
  /** The text that follows the rendered state: the question, its labelled options and the answer cue. */
  suffix: string;
}

/** A request rendered once: the byte-stable state prefix, then one suffix per question. */
export interface RenderedRequest {
  /** The state rendering; identical bytes for identical states, whatever the questions. */
  prefix: string;
  questions: RenderedQuestion[];
}

/** One question's distribution, index-aligned with `RenderedQuestion.options`. */
export interface QuestionScores {
  /** Natural-log scores per option. Need not be normalised; the engine renormalises over the options. */
  logprobs: number[];
  /** Probability mass the model put on the label set before renormalising, in [0, 1], where known. */
  coveredMass?: number;
  /** How this one question was read, where it differs from the job's `ScoreResult.scoring` (a provider's own). */
  scoring?: ScoringMethod;
}

export interface ScoreJob {
  /** The resolved, versioned model id. */
  model: string;
  /** The caller's state, as sent (backends that forward the request, like the remote one, need it). */
  state: SystemOneRequest['state'];
  rendered: RenderedRequest;
  signal?: AbortSignal;
  /** The judge's request id (X-Request-Id), for a backend to pass upstream. */
  requestId?: string;
}

/**
 * How a backend reads its numbers. `calibrated` is true when the probabilities are the model's own next-token
 * probabilities over the labels (what the judge's temperatures are fit on), false for estimates such as sampling,
 * and absent where nobody says (a remote provider that does not report it).
 */
export interface ScoringMethod {
  /** "exact_label_ids", "top_logprobs", "samples"; "remote" for a provider that does not say. */
  method: string;
  calibrated?: boolean;
}

export interface ScoreResult {
  /** Index-aligned with `job.rendered.questions`. */
  scores: QuestionScores[];
  /** How these scores were read, when the backend says (each answer then carries it). */
  scoring?: ScoringMethod;
  /** What the upstream model server reported for this job's calls, when the backend calls one. */
  upstream?: UpstreamTokens;
  /** Tokens actually processed (prefix once, plus every suffix and label token fed to the model). */
  inputTokens: number;
  /** The versioned id that answered, when the backend learns it (a remote provider resolving its own alias). */
  model?: string;
}

/** What one request will cost as the backend really sends it; checked against the limits before scoring. */
export interface TokenPlan {
  /** Input tokens of every upstream call together: the state counted as often as it is sent. */
  total: number;
  /** The longest single sequence: the state plus the longest question (or option group) after it. */
  longest: number;
  /** How many times the state is sent (once per prompt for chat backends); default 1. */
  statePasses?: number;
  /** Why it is sent that often, when not once per prompt (e.g. the sampling fallback's samples), with its setting. */
  passesWhy?: string;
}

export interface ModelDescriptor {
  /** Pinned, versioned id, e.g. "judge-onnx-2026-11-01". */
  id: string;
  description: string;
  /** ISO date. */
  releaseDate: string;
}

export interface Backend {
  /** A short name for logs and config, e.g. "openai", "remote", "onnx". */
  readonly kind: string;
  /** The versioned models this backend serves. */
  models(): ModelDescriptor[];
  /** Tokens this text costs on `model`, for the token budget and usage counts. */
  countTokens(model: string, text: string): Promise<number> | number;
  score(job: ScoreJob): Promise<ScoreResult>;
  /**
   * The tokens `score` would send for this job. Default (when absent): the state once plus every question suffix,
   * each counted with `countTokens`; backends that send the state more than once must say so here.
   */
  planTokens?(job: Omit<ScoreJob, 'signal'>): Promise<TokenPlan> | TokenPlan;
  /** How `model` is scored, probing the upstream if not known yet (GET /v1/models reports it). */
  scoringOf?(model: string): Promise<ScoringMethod | undefined>;
  /** Whether a model id that `models()` does not list may still be asked for (a provider's pinned versions). */
  acceptsModel?(model: string): boolean;
  /** Release sessions, sockets and timers. */
  close?(): Promise<void>;
}

/** What callers are told for each BackendError code: never an upstream URL or the upstream's own text. */
const PUBLIC_MESSAGES: Readonly<Record<string, string>> = {
  logprobs_unsupported:
    'The upstream model returned no logprobs; the judge needs a server and model that support logprobs with ' +
    'top_logprobs.',
  labels_not_covered: 'The model put no probability on any answer label; it does not follow the answer format.',
  coverage_below_floor:
    'The model put less probability on the answer labels than this server requires (its coverage floor).',
  upstream_auth_failed: "The upstream model server refused this server's credentials.",
  upstream_invalid_response: 'The upstream model server returned an invalid response.',
  upstream_rate_limited: 'The upstream model server is rate-limiting; try again later.',
  upstream_rejected: 'The upstream model server refused the request.',
  upstream_timeout: 'The upstream model server did not answer in time.',
  upstream_unreachable: 'The upstream model server could not be reached.',
  upstream_error: 'The upstream model server failed.',
  budget_exceeded: 'A spending cap of the model gateway has no room for this request.',
  cancelled: 'The request was cancelled.',
};

const PUBLIC_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'The upstream model server refused the request.',
  503: 'The model backend is overloaded; try again later.',
  504: 'The model backend did not answer in time.',
};

export interface BackendErrorOptions {
  /** What the caller is told; default: a fixed sentence for the code. Never put upstream URLs or text here. */
  publicMessage?: string;
  /** How long the upstream asked us to wait, sent on as `retry-after`. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * Raised by a backend when the model's upstream fails. `message` is for the log and may name upstream URLs and
 * quote upstream errors; callers get `publicMessage` through toApiError().
 */
export class BackendError extends Error {
  readonly publicMessage: string;
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    readonly status: 400 | 402 | 502 | 503 | 504 = 502,
    readonly code = 'backend_error',
    options: BackendErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BackendError';
    this.publicMessage =
      options.publicMessage ?? PUBLIC_MESSAGES[code] ?? PUBLIC_BY_STATUS[status] ?? 'The model backend failed.';
    this.retryAfterMs = options.retryAfterMs;
  }

  /** The answer for the caller, in the API's envelope, with `retry-after` when the upstream gave one. */
  toApiError(): ApiError {
    const seconds = this.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(this.retryAfterMs / 1000));
    const headers: Record<string, string> = seconds === undefined ? {} : { 'retry-after': String(seconds) };
    const hint = this.status < 500 ? '' : ' The server log has the details under this X-Request-Id.';
    return new ApiError(this.status, this.publicMessage + hint, this.code, { headers, cause: this });
  }
}
