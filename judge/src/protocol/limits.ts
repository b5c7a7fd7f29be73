// The API's limits on a request, as the judge enforces them by default, and the sentence of a refusal that a client
// may have to give itself: part of the wire contract, so the n8n nodes import them (`systemone-judge/core`).

export interface ValidationLimits {
  /** Most questions in one request. */
  maxQuestions: number;
  /** Most options in a choice question (the API allows 255). */
  maxChoiceOptions: number;
  /** Fewest and most levels in a score question (the API allows 2..10). */
  minScoreLevels: number;
  maxScoreLevels: number;
}

export const DEFAULT_VALIDATION_LIMITS: ValidationLimits = {
  // Jev answers at least 800 questions in one call.
  maxQuestions: 1000,
  maxChoiceOptions: 255,
  minScoreLevels: 2,
  maxScoreLevels: 10,
};

/** Deepest JSON nesting of a request body the server reads by default (its `limits.maxJsonDepth`); deeper → 400. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** The 400 message for a body nested deeper than `limit` levels, word for word. */
export const tooDeepMessage = (limit: number): string => `The body nests JSON deeper than ${limit} levels.`;
