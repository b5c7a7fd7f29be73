// The one interface every scoring backend implements: given a rendered request, return for each
// question one distribution over its options (as log-probabilities), read from a model without generating text.
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
}

export interface ScoreJob {
  /** The resolved, versioned model id. */
  model: string;
  /** The caller's state, as sent (backends that forward the request, like the remote one, need it). */
  state: SystemOneRequest['state'];
  rendered: RenderedRequest;
  signal?: AbortSignal;
}

export interface ScoreResult {
  /** Index-aligned with `job.rendered.questions`. */
  scores: QuestionScores[];
  /** Tokens actually processed (prefix once, plus every suffix and label token fed to the model). */
  inputTokens: number;
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
  /** Release sessions, sockets and timers. */
  close?(): Promise<void>;
}

/** Raised by a backend when the model's upstream fails; the server maps it to 502/504. */
export class BackendError extends Error {
  constructor(
    message: string,
    readonly status: 502 | 503 | 504 = 502,
    readonly code = 'backend_error',
  ) {
    super(message);
    this.name = 'BackendError';
  }
}
