// A backend that answers at once with fixed scores: the benchmark measures everything around the model.
import type { Backend, ModelDescriptor, ScoreJob, ScoreResult } from '../../src/engine/backend';

export class InstantBackend implements Backend {
  readonly kind = 'instant';

  models(): ModelDescriptor[] {
    return [
      { id: 'instant-2026-01-01', description: 'fixed scores, no model (benchmarks only)', releaseDate: '2026-01-01' },
    ];
  }

  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const scores = job.rendered.questions.map((q) => ({ logprobs: q.options.map((_, i) => -0.5 * i), coveredMass: 1 }));
    return { scores, inputTokens: this.countTokens(job.model, job.rendered.prefix) };
  }
}
