// A scoring job as the main thread hands it to an inference worker: token ids only (plain data, cheap to send).
import { BackendError, type QuestionScores } from '../../engine/backend';
import type { OnnxRunStats } from './feeds-and-run';

export interface PreparedQuestion {
  suffixIds: readonly number[];
  labelIds: (readonly number[])[];
}

export interface PreparedJob {
  model: string;
  /** The state-KV cache key: model id + SHA-256 of the rendered state. */
  stateKey: string;
  stateIds: readonly number[];
  questions: PreparedQuestion[];
}

export interface JobResult {
  scores: QuestionScores[];
  /** What this job fed to session.run; `tokens` is its usage. */
  stats: OnnxRunStats;
}

/** Thrown between runs once the job's caller has gone. */
export const cancelledError = (): BackendError => new BackendError('the request was cancelled', 504, 'cancelled');
