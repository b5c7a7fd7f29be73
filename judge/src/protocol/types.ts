// Wire types of the public System One API (POST /v1/systemone, GET /v1/models).

/** Free text or any JSON value: instructions, option descriptions, score levels and the state may all be these. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type QuestionType = 'noul' | 'choice' | 'score';

export interface NoulQuestion {
  type: 'noul';
  instructions?: JsonValue;
  criteria?: { true?: JsonValue; false?: JsonValue };
}

export interface ChoiceQuestion {
  type: 'choice';
  instructions?: JsonValue;
  /** label → description (or null); 1..255 options, in the caller's order. */
  criteria: Record<string, JsonValue | null>;
}

export interface ScoreQuestion {
  type: 'score';
  instructions?: JsonValue;
  /** 2..10 levels, low → high. */
  criteria: JsonValue[];
}

export type Question = NoulQuestion | ChoiceQuestion | ScoreQuestion;

export interface SystemOneRequest {
  model: string;
  state: string | JsonValue[] | { [key: string]: JsonValue };
  questions: Record<string, Question>;
}

/**
 * How an answer was read, on every answer of a backend that says so. Extra fields: the System One SDK passes
 * answers through without checking their shape, so callers that do not know them are unaffected.
 */
export interface ScoringFields {
  /**
   * "exact_label_ids" (every label read by id over the full vocabulary: vLLM, SGLang, the local ONNX model),
   * "top_logprobs" (the model's next-token probabilities), "samples" (replies counted), or a remote provider's own
   * ("remote" when it does not say).
   */
  method?: string;
  /** false when the probabilities are an estimate (sampling), not the model's own distribution; absent if unknown. */
  calibrated?: boolean;
  /** Label mass the model's distribution covered (or share of sampled replies that named a label), in [0, 1]. */
  coverage?: number;
}

export interface NoulAnswer extends ScoringFields {
  type: 'noul';
  noul: number;
}

export interface ChoiceAnswer extends ScoringFields {
  type: 'choice';
  choice: string;
  probabilities: Record<string, number>;
  confidence: number;
}

export interface ScoreAnswer extends ScoringFields {
  type: 'score';
  score: number;
  probabilities: Record<string, number>;
  legend: Record<string, JsonValue>;
  confidence: number;
}

export type Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export interface SystemOneResponse {
  model: string;
  answers: Record<string, Answer>;
  usage: Usage;
}

export interface ModelInfo {
  name: string;
  description: string;
  release_date: string;
  /** How the model's answers are read (an extra field, where the backend says). */
  /** `calibrated` is absent where nobody says (a remote provider that does not report it). */
  scoring?: { method: string; calibrated?: boolean };
}

export interface ModelList {
  models: ModelInfo[];
}

/** One entry of a 422 `detail` list, naming the exact field. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The `detail` of every error body but a 422's. */
export interface ErrorDetail {
  /** Machine-readable: "authentication_error", "invalid_model", "max_tokens_exceeded", "overloaded", … */
  error_type: string;
  /** A sentence for people. */
  message?: string;
}

/** Jev's error envelope: `{"detail": {"error_type", "message"}}`; a 422 lists the broken fields instead. */
export type ErrorBody = { detail: ErrorDetail } | { detail: FieldIssue[]; error_type?: string };
