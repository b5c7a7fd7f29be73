// The local ONNX backend: scores every question's options from a decoder-only LM, so that extra questions cost
// only their own tokens. This file is the main thread's part: tokenising, the token plan and limits, and handing
// each job to an inference worker (worker-pool.ts), so that a model run never holds the server's thread.
// How a job is run per layout: layouts/*.ts; the feeds and session.run: feeds-and-run.ts.
import type { Backend, ModelDescriptor, ScoreJob, ScoreResult, ScoringMethod, TokenPlan } from '../../engine/backend';
import { BackendError } from '../../engine/backend';
import { badRequest } from '../../protocol/errors';
import type { OnnxRunStats } from './feeds-and-run';
import type { PreparedJob, PreparedQuestion } from './job';
import { stateKey } from './kv-cache';
import { explainLayout, type GraphInfo, type GraphLayout } from './graph-layout';
import { MissingChatTemplateError, readModelFiles, type ModelFiles } from './model-files';
import { DEFAULT_KV_CACHE_BYTES, parseOnnxBackendOptions, type OnnxBackendOptions } from './options';
import type { PromptTokenizer } from './prompt-tokens';
import { InferencePool } from './worker-pool';

/** What the main thread knows of a served model: its files, tokenizer and graph (as the workers loaded it). */
export interface ServedModel extends ModelFiles {
  descriptor: ModelDescriptor;
  graph: GraphInfo;
  layout: GraphLayout;
  /** Which path the model gets and why (graph-layout.ts explainLayout), said by `serve` at start. */
  path: string;
}

/**
 * Every label is read by its token ids from the model's full-vocabulary softmax (log-softmax.ts), multi-token labels
 * token by token: the model's own probabilities, so exact and calibrated. Each question's coverage is the labels'
 * total probability as read (layouts/labels.ts combine), not assumed to be 1.
 */
export const ONNX_SCORING: ScoringMethod = { method: 'exact_label_ids', calibrated: true };

export class OnnxBackend implements Backend {
  readonly kind = 'onnx';

  constructor(
    private readonly served: Map<string, ServedModel>,
    private readonly pool: InferencePool,
  ) {}

  /** What the inference workers fed to session.run, all together. */
  get stats(): OnnxRunStats {
    return { ...this.pool.stats };
  }

  models(): ModelDescriptor[] {
    return [...this.served.values()].map((e) => e.descriptor);
  }

  /** A served model: its tokenizer, limits and graph layout. */
  loaded(modelId: string): ServedModel {
    const model = this.served.get(modelId);
    if (!model) throw new BackendError(`the ONNX backend does not serve model "${modelId}"`, 502, 'unknown_model');
    return model;
  }

  countTokens(model: string, text: string): number {
    return this.loaded(model).prompt.textIds(text).length;
  }

  /** Token ids of each label after the cue; when one label's tokens begin another's, every label is closed with ")". */
  private labelIds(prompt: PromptTokenizer, labels: string[]): (readonly number[])[] {
    let ids = labels.map((label) => prompt.labelIds(label));
    const isProperPrefix = (a: readonly number[], b: readonly number[]): boolean =>
      a.length < b.length && a.every((t, i) => b[i] === t);
    if (ids.some((a, i) => ids.some((b, j) => i !== j && isProperPrefix(a, b)))) {
      ids = labels.map((label) => prompt.labelIds(`${label})`));
    }
    ids.forEach((seq, i) => {
      if (seq.length === 0) throw badRequest(`The option label ${JSON.stringify(labels[i])} encodes to no tokens.`);
    });
    return ids;
  }

  /**
   * The tokens score() feeds with a cold state cache: with a past, the state once, then every suffix and every
   * multi-token label's later tokens; without one (no-past), the state again for each question and label pass.
   */
  planTokens(job: Omit<ScoreJob, 'signal'>): TokenPlan {
    const m = this.loaded(job.model);
    const state = m.prompt.stateIds(job.rendered.prefix).length;
    const withPast = m.layout !== 'no-past';
    const plan: TokenPlan = { total: withPast ? state : 0, longest: 0, statePasses: withPast ? 1 : 0 };
    for (const q of job.rendered.questions) {
      const suffix = m.prompt.questionIds(q.suffix).length;
      const continuations = this.labelIds(m.prompt, q.labels).map((label) => label.length - 1);
      plan.longest = Math.max(plan.longest, state + suffix + Math.max(...continuations));
      if (withPast) {
        plan.total += suffix + continuations.reduce((a, b) => a + b, 0);
        continue;
      }
      const passes = [0, ...continuations.filter((c) => c > 0)];
      plan.total += passes.reduce((sum, c) => sum + state + suffix + c, 0);
      plan.statePasses! += passes.length;
    }
    return plan;
  }

  /** Tokenises a job for a worker; refuses (400) a sequence longer than the model holds. */
  prepare(job: Omit<ScoreJob, 'signal'>): PreparedJob {
    const m = this.loaded(job.model);
    const stateIds = m.prompt.stateIds(job.rendered.prefix);
    const questions: PreparedQuestion[] = job.rendered.questions.map((q) => ({
      suffixIds: m.prompt.questionIds(q.suffix),
      labelIds: this.labelIds(m.prompt, q.labels),
    }));
    const longest = Math.max(
      ...questions.map((q) => q.suffixIds.length + Math.max(...q.labelIds.map((l) => l.length)) - 1),
    );
    if (stateIds.length + longest > m.maxPositions) {
      throw badRequest(
        `The state and its longest question need ${stateIds.length + longest} tokens in one sequence; model ${job.model} holds at most ${m.maxPositions}.`,
        'max_tokens_exceeded',
      );
    }
    return { model: job.model, stateKey: stateKey(job.model, job.rendered.prefix), stateIds, questions };
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const result = await this.pool.score(this.prepare(job), job.signal);
    return { scores: result.scores, inputTokens: result.stats.tokens, scoring: ONNX_SCORING };
  }

  /** The same for every served model (GET /v1/models reports it). */
  scoringOf(model: string): Promise<ScoringMethod | undefined> {
    return Promise.resolve(this.served.has(model) ? ONNX_SCORING : undefined);
  }

  /** Empties every worker's state-KV cache. */
  clearCache(): Promise<void> {
    return this.pool.clearCache();
  }

  /** States held in the workers' KV caches. */
  cachedStates(): Promise<number> {
    return this.pool.cachedStates();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * Reads every model directory, starts the inference workers (each loads every model), and returns the backend.
 * Errors name the model's field (`backend.models[0].dir: …`).
 */
export async function createOnnxBackend(options: OnnxBackendOptions): Promise<OnnxBackend> {
  const files = options.models.map((spec, i) => {
    try {
      return readModelFiles(spec.dir, spec.chatTemplate);
    } catch (error) {
      const field = error instanceof MissingChatTemplateError ? 'chatTemplate' : 'dir';
      throw new Error(`backend.models[${i}].${field}: ${(error as Error).message}`);
    }
  });
  const { pool, graphs } = await InferencePool.start(
    {
      models: options.models.map((spec, i) => ({
        id: spec.id,
        dir: spec.dir,
        config: files[i].config,
        maxPositions: files[i].maxPositions,
        padId: files[i].padId,
      })),
      intraOpNumThreads: options.intraOpNumThreads ?? 0,
      kvCacheBytes: options.kvCacheBytes ?? DEFAULT_KV_CACHE_BYTES,
    },
    options.workers ?? 1,
  );
  const shifting = options.models.findIndex((spec) => graphs[spec.id].batchDependent && !spec.batchDependentScores);
  if (shifting >= 0) {
    await pool.close();
    throw new Error(
      `backend.models[${shifting}].batchDependentScores: ${options.models[shifting].dir} is int8 dynamic quantization ` +
        '(DynamicQuantizeLinear): one activation scale per batch, so its answers shift with what is asked beside ' +
        'them. Use a batch-independent export (model_q4.onnx, model_fp16.onnx or the float model), or set ' +
        'batchDependentScores: true to accept that.',
    );
  }
  const served = new Map<string, ServedModel>();
  options.models.forEach((spec, i) => {
    const graph = graphs[spec.id];
    served.set(spec.id, {
      ...files[i],
      graph,
      layout: graph.layout,
      path: explainLayout(graph, files[i].config),
      descriptor: {
        id: spec.id,
        description:
          spec.description ??
          `Local ONNX model (${graph.layout} layout${files[i].chat ? ', chat template' : ''}) from ${spec.dir}`,
        releaseDate: spec.releaseDate ?? '1970-01-01',
      },
    });
  });
  return new OnnxBackend(served, pool);
}

/** From a raw `backend` config block: validate, load every model, return the backend. */
export function createOnnxBackendFromConfig(raw: Record<string, unknown>): Promise<OnnxBackend> {
  return createOnnxBackend(parseOnnxBackendOptions(raw));
}
