// Calibration metrics over labelled answers, and the temperature that makes them honest.
//
// An example is one answered question: its distribution over the options (as the engine returned it at
// temperature 1) and the index of the true option. Temperature T rescales it as softmax(log p / T), exactly as
// engine/readout.ts does with log-probs (the normalising constant cancels).
//   ECE      top-label expected calibration error: 10 equal-width bins of the top probability,
//            Σ_b (n_b / n) · |accuracy_b − mean confidence_b|. For noul the top label is yes or no.
//   Brier    multi-class: mean of Σ_k (p_k − y_k)² over the options (for noul twice the binary (p − y)²).
//   log loss mean of −ln p_true (p clamped to 1e-12).
import type { QuestionType } from '../protocol/types';
import { argmax, toProbabilities } from '../engine/readout';

export interface Example {
  type: QuestionType;
  /** The model's distribution over the question's options, at temperature 1. */
  probabilities: number[];
  /** Index of the true option. */
  label: number;
}

export interface Metrics {
  /** Answers measured. */
  n: number;
  ece: number;
  brier: number;
  logLoss: number;
}

export interface ReliabilityBin {
  /** Lower edge of the bin, in [0, 1). */
  from: number;
  to: number;
  count: number;
  /** Mean top probability in the bin (NaN when empty). */
  confidence: number;
  /** Share of the bin's answers whose top option was the true one (NaN when empty). */
  accuracy: number;
}

export const ECE_BINS = 10;
const FLOOR = 1e-12;

/** The distribution at temperature T. */
export function withTemperature(probabilities: number[], temperature: number): number[] {
  if (temperature === 1) return probabilities;
  return toProbabilities(
    probabilities.map((p) => Math.log(Math.max(p, FLOOR))),
    temperature,
  );
}

export function reliabilityBins(examples: readonly Example[], temperature = 1, bins = ECE_BINS): ReliabilityBin[] {
  const sums = Array.from({ length: bins }, () => ({ count: 0, confidence: 0, correct: 0 }));
  for (const example of examples) {
    const p = withTemperature(example.probabilities, temperature);
    const top = argmax(p);
    const bin = Math.min(bins - 1, Math.floor(p[top] * bins));
    sums[bin].count++;
    sums[bin].confidence += p[top];
    if (top === example.label) sums[bin].correct++;
  }
  return sums.map((s, i) => ({
    from: i / bins,
    to: (i + 1) / bins,
    count: s.count,
    confidence: s.count ? s.confidence / s.count : NaN,
    accuracy: s.count ? s.correct / s.count : NaN,
  }));
}

export function measure(examples: readonly Example[], temperature = 1): Metrics {
  const n = examples.length;
  if (n === 0) return { n: 0, ece: NaN, brier: NaN, logLoss: NaN };
  let brier = 0;
  let logLoss = 0;
  for (const example of examples) {
    const p = withTemperature(example.probabilities, temperature);
    brier += p.reduce((sum, pk, k) => sum + (pk - (k === example.label ? 1 : 0)) ** 2, 0);
    logLoss -= Math.log(Math.max(p[example.label], FLOOR));
  }
  const ece = reliabilityBins(examples, temperature).reduce(
    (sum, bin) => (bin.count ? sum + (bin.count / n) * Math.abs(bin.accuracy - bin.confidence) : sum),
    0,
  );
  return { n, ece, brier: brier / n, logLoss: logLoss / n };
}

/** Mean negative log-likelihood at temperature T (what the fit minimises). */
export function negativeLogLikelihood(examples: readonly Example[], temperature: number): number {
  let total = 0;
  for (const example of examples) {
    const p = withTemperature(example.probabilities, temperature);
    total -= Math.log(Math.max(p[example.label], FLOOR));
  }
  return total / examples.length;
}

export const MIN_TEMPERATURE = 0.01;
export const MAX_TEMPERATURE = 100;

/**
 * The temperature minimising the log loss. The loss is convex in 1/T, so it has one minimum along ln T, found by
 * golden-section search on ln T in [ln 0.01, ln 100] (to about 1e-9 relative). No examples → 1.
 */
export function fitTemperature(examples: readonly Example[]): number {
  if (examples.length === 0) return 1;
  const loss = (u: number) => negativeLogLikelihood(examples, Math.exp(u));
  const ratio = (Math.sqrt(5) - 1) / 2;
  let lo = Math.log(MIN_TEMPERATURE);
  let hi = Math.log(MAX_TEMPERATURE);
  let a = hi - ratio * (hi - lo);
  let b = lo + ratio * (hi - lo);
  let fa = loss(a);
  let fb = loss(b);
  while (hi - lo > 1e-9) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = loss(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = loss(b);
    }
  }
  return Math.exp((lo + hi) / 2);
}
