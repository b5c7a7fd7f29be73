// A backend with known probabilities (test-only): each question's distribution comes from a function of the
// rendered question, so readout and confidence can be checked against exact numbers.
import type { Backend, ModelDescriptor, RenderedQuestion, ScoreJob, ScoreResult } from '../../src/engine/backend';

export const EXACT_MODEL: ModelDescriptor = {
  id: 'exact-2026-01-01',
  description: 'exact test probabilities',
  releaseDate: '2026-01-01',
};

export class ExactBackend implements Backend {
  readonly kind = 'exact';
  readonly jobs: ScoreJob[] = [];

  constructor(private readonly probabilitiesFor: (question: RenderedQuestion) => number[]) {}

  models(): ModelDescriptor[] {
    return [EXACT_MODEL];
  }

  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    this.jobs.push(job);
    const scores = job.rendered.questions.map((q) => ({
      logprobs: this.probabilitiesFor(q).map(Math.log),
      coveredMass: 1,
    }));
    const inputTokens =
      this.countTokens(job.model, job.rendered.prefix) +
      job.rendered.questions.reduce((sum, q) => sum + this.countTokens(job.model, q.suffix), 0);
    return { scores, inputTokens };
  }
}

/** Uniform over every question's options. */
export const uniformBackend = () => new ExactBackend((q) => q.options.map(() => 1 / q.options.length));
