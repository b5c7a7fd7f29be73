// What an inference worker holds and does: one session per model, one state-KV cache, and scoring a prepared job
// with its layout's strategy. Plain code, so the worker (inference-worker.ts) is only a message loop around it.
import { BackendError } from '../../engine/backend';
import { ModelRun, addStats, zeroStats, type OnnxRunStats } from './feeds-and-run';
import type { JobResult, PreparedJob } from './job';
import { StateKvCache } from './kv-cache';
import { STRATEGIES } from './layouts';
import { loadModel, releaseModel, type LoadedModel, type ModelSettings } from './model-dir';

export interface InferenceSettings {
  models: ModelSettings[];
  intraOpNumThreads: number;
  kvCacheBytes: number;
}

export class LocalInference {
  readonly stats: OnnxRunStats = zeroStats();
  readonly cache: StateKvCache;

  private constructor(
    private readonly models: Map<string, LoadedModel>,
    kvCacheBytes: number,
  ) {
    this.cache = new StateKvCache(kvCacheBytes);
  }

  /** Loads every model; an error names the model's index (`backend.models[i].dir`). */
  static async load(settings: InferenceSettings): Promise<LocalInference> {
    const models = new Map<string, LoadedModel>();
    try {
      for (const [i, model] of settings.models.entries()) {
        try {
          models.set(model.id, await loadModel(model, settings.intraOpNumThreads));
        } catch (error) {
          throw new Error(`backend.models[${i}].dir: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      for (const m of models.values()) await releaseModel(m);
      throw error;
    }
    return new LocalInference(models, settings.kvCacheBytes);
  }

  model(id: string): LoadedModel {
    const m = this.models.get(id);
    if (!m) throw new BackendError(`the ONNX backend does not serve model "${id}"`, 502, 'unknown_model');
    return m;
  }

  /** Scores a job; `cancelled` is asked before every run, so a job whose caller has gone stops at the next one. */
  async score(job: PreparedJob, cancelled: () => boolean = () => false): Promise<JobResult> {
    const run = new ModelRun(this.model(job.model), cancelled);
    try {
      const scores = await STRATEGIES[run.model.graph.layout].score(run, job, this.cache);
      return { scores, stats: run.stats };
    } finally {
      addStats(this.stats, run.stats);
    }
  }

  async close(): Promise<void> {
    this.cache.clear();
    for (const m of this.models.values()) await releaseModel(m);
    this.models.clear();
  }
}
