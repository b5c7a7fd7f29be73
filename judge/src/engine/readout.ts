// Read out: one distribution per question → the System One answer.
// Confidence as Jev computes it:
//   choice: (n·p_max − 1)/(n − 1)   (a 1-option choice answers with probability 1 and confidence 1);
//   score:  1 − E|i − m| / E_uniform|i − (n−1)/2|, m = the most likely level (lowest on ties), clamped to [0, 1];
//   noul:   none.
import type { RenderedQuestion } from './backend';
import type { Answer, JsonValue, QuestionType } from '../protocol/types';
import { setOwn } from '../util/own';

/** Per-type temperature applied to the log-probs before normalising (1 = as the model said). */
export type Temperatures = Partial<Record<QuestionType, number>>;

/** softmax(logprobs / temperature), in a numerically stable way. */
export function toProbabilities(logprobs: number[], temperature = 1): number[] {
  if (!(temperature > 0) || !Number.isFinite(temperature))
    throw new Error(`temperature must be > 0, got ${temperature}`);
  // Plain loops (no spread, map or reduce): this runs for every question of every request.
  const n = logprobs.length;
  const out: number[] = [];
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const scaled = logprobs[i] / temperature;
    out.push(scaled);
    max = Math.max(max, scaled);
  }
  if (!Number.isFinite(max)) {
    for (let i = 0; i < n; i++) out[i] = 1 / n;
    return out;
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const weight = Math.exp(out[i] - max);
    out[i] = weight;
    total += weight;
  }
  for (let i = 0; i < n; i++) out[i] = out[i] / total;
  return out;
}

/** Index of the largest value, the lowest index on ties. */
export function argmax(values: number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Math.max over the values, without spreading them into arguments. */
function maxOf(values: number[]): number {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) max = Math.max(max, values[i]);
  return max;
}

export function choiceConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  if (n <= 1) return 1;
  const pMax = maxOf(probabilities);
  return (n * pMax - 1) / (n - 1);
}

export function scoreConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  const mode = argmax(probabilities);
  let expectedDistance = 0;
  for (let i = 0; i < n; i++) expectedDistance += probabilities[i] * Math.abs(i - mode);
  const centre = (n - 1) / 2;
  let uniformDistance = 0;
  for (let i = 0; i < n; i++) uniformDistance += Math.abs(i - centre) / n;
  const confidence = 1 - expectedDistance / uniformDistance;
  return Math.min(1, Math.max(0, confidence));
}

/** {option: probability}, in the options' order (own keys, `__proto__` included). */
function byOption(options: string[], probabilities: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < options.length; i++) setOwn(out, options[i], probabilities[i]);
  return out;
}

export function readOut(rendered: RenderedQuestion, logprobs: number[], temperatures: Temperatures = {}): Answer {
  if (logprobs.length !== rendered.options.length) {
    throw new Error(
      `backend returned ${logprobs.length} scores for ${rendered.options.length} options of ${rendered.name}`,
    );
  }
  const probabilities = toProbabilities(logprobs, temperatures[rendered.type] ?? 1);

  switch (rendered.question.type) {
    case 'noul':
      return { type: 'noul', noul: probabilities[0] };
    case 'choice':
      return {
        type: 'choice',
        choice: rendered.options[argmax(probabilities)],
        probabilities: byOption(rendered.options, probabilities),
        confidence: choiceConfidence(probabilities),
      };
    case 'score': {
      const levels = rendered.question.criteria;
      const legend: Record<string, JsonValue> = {};
      for (let i = 0; i < levels.length; i++) legend[String(i)] = levels[i];
      let score = 0;
      for (let i = 0; i < probabilities.length; i++) score += i * probabilities[i];
      return {
        type: 'score',
        score,
        probabilities: byOption(rendered.options, probabilities),
        legend,
        confidence: scoreConfidence(probabilities),
      };
    }
  }
}
