// The messages between the main thread (worker-pool.ts) and an inference worker (inference-worker.ts).
import type { BackendError } from '../../engine/backend';
import type { InferenceSettings } from './inference';
import type { JobResult, PreparedJob } from './job';
import type { GraphInfo } from './graph-layout';

export interface WorkerData {
  settings: InferenceSettings;
  /** Int32[1]: the id of the job the main thread wants stopped (the worker checks it before every run). */
  cancel: SharedArrayBuffer;
}

export type WorkerRequest =
  | { id: number; type: 'score'; job: PreparedJob }
  | { id: number; type: 'clear-cache' }
  | { id: number; type: 'cache-size' };

/** A failure, as plain data: a BackendError keeps its status and code. */
export interface WorkerFailure {
  message: string;
  status?: BackendError['status'];
  code?: string;
}

export type WorkerReply =
  | { type: 'ready'; graphs: Record<string, GraphInfo> }
  | { type: 'load-failed'; message: string }
  | { id: number; type: 'done'; value: JobResult | number | null }
  | { id: number; type: 'failed'; error: WorkerFailure; stats?: JobResult['stats'] };
