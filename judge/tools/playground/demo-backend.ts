// A deterministic backend for the playground's screenshot and browser test: fixed, plausible distributions for the
// page's example questions (by name), and a distribution derived from the option count for any other question.
import type { Backend, ModelDescriptor, RenderedQuestion, ScoreJob, ScoreResult } from '../../src/engine/backend';

export const DEMO_MODEL: ModelDescriptor = {
  id: 'judge-demo-2026-01-01',
  description: 'fixed distributions for the playground demo (no model)',
  releaseDate: '2026-01-01',
};

const EXAMPLE: Record<string, number[]> = {
  refund_asked: [0.94, 0.06],
  team: [0.86, 0.05, 0.09],
  frustration: [0.05, 0.52, 0.38, 0.05],
};

/** Weights 1, 2, …, n (normalised): a different, known probability for every option. */
export function rampProbabilities(n: number): number[] {
  const total = (n * (n + 1)) / 2;
  return Array.from({ length: n }, (_, i) => (i + 1) / total);
}

export function demoProbabilities(question: RenderedQuestion): number[] {
  const fixed = EXAMPLE[question.name];
  return fixed && fixed.length === question.options.length ? fixed : rampProbabilities(question.options.length);
}

export class DemoBackend implements Backend {
  readonly kind = 'demo';

  models(): ModelDescriptor[] {
    return [DEMO_MODEL];
  }

  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const scores = job.rendered.questions.map((q) => ({
      logprobs: demoProbabilities(q).map(Math.log),
      coveredMass: 1,
    }));
    const inputTokens =
      this.countTokens(job.model, job.rendered.prefix) +
      job.rendered.questions.reduce((sum, q) => sum + this.countTokens(job.model, q.suffix), 0);
    return { scores, inputTokens };
  }
}
