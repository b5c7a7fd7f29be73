// Read out: one distribution per question → the System One answer.
// Confidence as Jev computes it:
//   choice: (n·p_max − 1)/(n − 1)   (a 1-option choice answers with probability 1 and confidence 1);
//   score:  1 − E|i − m| / E_uniform|i − (n−1)/2|, m = the most likely level (lowest on ties), clamped to [0, 1];
//   noul:   none.
import type { RenderedQuestion } from './backend';
import type { Answer, JsonValue, QuestionType } from '../protocol/types';

/** Per-type temperature applied to the log-probs before normalising (1 = as the model said). */
export type Temperatures = Partial<Record<QuestionType, number>>;

/** softmax(logprobs / temperature), in a numerically stable way. */
export function toProbabilities(logprobs: number[], temperature = 1): number[] {
  if (!(temperature > 0) || !Number.isFinite(temperature))
    throw new Error(`temperature must be > 0, got ${temperature}`);
  const scaled = logprobs.map((lp) => lp / temperature);
  const max = Math.max(...scaled);
  if (!Number.isFinite(max)) return scaled.map(() => 1 / scaled.length);
  const weights = scaled.map((s) => Math.exp(s - max));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** Index of the largest value, the lowest index on ties. */
export function argmax(values: number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

export function choiceConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  if (n <= 1) return 1;
  const pMax = Math.max(...probabilities);
  return (n * pMax - 1) / (n - 1);
}

export function scoreConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  const mode = argmax(probabilities);
  const expectedDistance = probabilities.reduce((sum, p, i) => sum + p * Math.abs(i - mode), 0);
  const centre = (n - 1) / 2;
  let uniformDistance = 0;
  for (let i = 0; i < n; i++) uniformDistance += Math.abs(i - centre) / n;
  const confidence = 1 - expectedDistance / uniformDistance;
  return Math.min(1, Math.max(0, confidence));
}

export function readOut(rendered: RenderedQuestion, logprobs: number[], temperatures: Temperatures = {}): Answer {
  if (logprobs.length !== rendered.options.length) {
    throw new Error(
      `backend returned ${logprobs.length} scores for ${rendered.options.length} options of ${rendered.name}`,
    );
  }
  const probabilities = toProbabilities(logprobs, temperatures[rendered.type] ?? 1);
  const byOption = (): Record<string, number> =>
    Object.fromEntries(rendered.options.map((option, i) => [option, probabilities[i]]));

  switch (rendered.question.type) {
    case 'noul':
      return { type: 'noul', noul: probabilities[0] };
    case 'choice':
      return {
        type: 'choice',
        choice: rendered.options[argmax(probabilities)],
        probabilities: byOption(),
        confidence: choiceConfidence(probabilities),
      };
    case 'score': {
      const levels = rendered.question.criteria;
      const legend: Record<string, JsonValue> = Object.fromEntries(levels.map((level, i) => [String(i), level]));
      return {
        type: 'score',
        score: probabilities.reduce((sum, p, i) => sum + i * p, 0),
        probabilities: byOption(),
        legend,
        confidence: scoreConfidence(probabilities),
      };
    }
  }
}
