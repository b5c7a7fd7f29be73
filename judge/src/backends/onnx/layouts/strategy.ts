// How one model layout scores a job. One strategy per layout (see model-dir.ts): shared-prefix.ts, plain-past.ts,
// no-past.ts; the two layouts with a past share state.ts (the state's KV: cached, encoded, or one single pass).
import type { QuestionScores } from '../../../engine/backend';
import type { ModelRun } from '../feeds-and-run';
import type { PreparedJob } from '../job';
import type { StateKvCache } from '../kv-cache';

export interface LayoutStrategy {
  score(run: ModelRun, job: PreparedJob, cache: StateKvCache): Promise<QuestionScores[]>;
}
