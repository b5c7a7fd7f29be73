// The engine: validate → resolve the model → render → check the token budget → backend.score → read out.
import { defaultAliases } from './aliases';
import type { Backend, ModelDescriptor, ScoreJob, TokenPlan } from './backend';
import type { UpstreamTokens } from '../keys/types';
import { readOut, type Temperatures } from './readout';
import { setOwn } from '../util/own';
import { renderRequest } from './render';
import { badRequest } from '../protocol/errors';
import type { ModelInfo, SystemOneResponse } from '../protocol/types';
import { DEFAULT_VALIDATION_LIMITS, type ValidationLimits } from '../protocol/limits';
import { validateRequest } from '../protocol/validate';

export { DEFAULT_ALIAS, defaultAliases, latestAliases, parseModelId, compareVersions } from './aliases';

export interface EngineLimits extends ValidationLimits {
  /** Most input tokens one request may send to the model in all (the state counted each time it is sent). */
  maxInputTokens: number;
  /** Most tokens in one sequence: the state plus the longest question (or option group) after it. */
  maxSequenceTokens: number;
}

/** Jev's: 64k tokens in all, 32k for the state plus the longest question. */
export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  ...DEFAULT_VALIDATION_LIMITS,
  maxInputTokens: 65_536,
  maxSequenceTokens: 32_768,
};

export interface EngineOptions {
  backend: Backend;
  /**
   * Moving names → pinned ids, e.g. {"stable": "judge-openai-2026-11-01"}, on top of (and overriding) the
   * default aliases: `<name>-latest` → the newest id of that name, `jev-latest` → the first model (see aliases.ts).
   */
  aliases?: Record<string, string>;
  limits?: Partial<EngineLimits>;
  temperatures?: Temperatures;
}

/** A validated, rendered request within the limits, ready for `answer`. */
export type PreparedJob = Omit<ScoreJob, 'signal'>;

export interface JudgeOutcome {
  response: SystemOneResponse;
  /** Probability mass the model put on each question's labels, where the backend knows it. */
  coveredMass: Record<string, number | undefined>;
  /** The least of `coveredMass` over the questions where it is known (undefined when it is known for none). */
  minCoveredMass?: number;
  /** What the upstream reported for the calls behind this answer (usage records; never in the response). */
  upstream?: UpstreamTokens;
}

/** The plan of a backend that sends the state once and every question suffix once (the default). */
export async function plainTokenPlan(backend: Backend, job: Omit<ScoreJob, 'signal'>): Promise<TokenPlan> {
  return plainTokenPlanNow(backend, job);
}

/**
 * plainTokenPlan without waiting while the backend counts synchronously: a plan, or a promise of one from the
 * first count that is a promise on (the texts are still counted one after the other, in the same order).
 */
function plainTokenPlanNow(backend: Backend, job: Omit<ScoreJob, 'signal'>): TokenPlan | Promise<TokenPlan> {
  const sums = { state: 0, total: 0, longestSuffix: 0 };
  const questions = job.rendered.questions;
  // Text -1 is the state; 0.. are the question suffixes.
  for (let i = -1; i < questions.length; i++) {
    const count = backend.countTokens(job.model, i < 0 ? job.rendered.prefix : questions[i].suffix);
    if (typeof count !== 'number') return plainTokenPlanFrom(backend, job, sums, i, count);
    addCount(sums, i, count);
  }
  return { total: sums.total, longest: sums.state + sums.longestSuffix, statePasses: 1 };
}

interface PlanSums {
  state: number;
  total: number;
  longestSuffix: number;
}

function addCount(sums: PlanSums, text: number, count: number): void {
  if (text < 0) {
    sums.state = count;
    sums.total = count;
  } else {
    sums.total += count;
    sums.longestSuffix = Math.max(sums.longestSuffix, count);
  }
}

/** The rest of plainTokenPlanNow once a count is a promise: text `from` is being counted by `pending`. */
async function plainTokenPlanFrom(
  backend: Backend,
  job: Omit<ScoreJob, 'signal'>,
  sums: PlanSums,
  from: number,
  pending: Promise<number>,
): Promise<TokenPlan> {
  const questions = job.rendered.questions;
  addCount(sums, from, await pending);
  for (let i = from + 1; i < questions.length; i++) {
    addCount(sums, i, await backend.countTokens(job.model, questions[i].suffix));
  }
  return { total: sums.total, longest: sums.state + sums.longestSuffix, statePasses: 1 };
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

export class JudgeEngine {
  readonly backend: Backend;
  readonly limits: EngineLimits;
  private readonly aliases: Record<string, string>;
  private readonly temperatures: Temperatures;

  constructor(options: EngineOptions) {
    this.backend = options.backend;
    this.aliases = { ...defaultAliases(this.backend.models()), ...(options.aliases ?? {}) };
    this.limits = { ...DEFAULT_ENGINE_LIMITS, ...(options.limits ?? {}) };
    this.temperatures = { ...(options.temperatures ?? {}) };
    for (const [alias, target] of Object.entries(options.aliases ?? {})) {
      if (!this.serves(target)) {
        throw new Error(`alias "${alias}" points to "${target}", which backend "${this.backend.kind}" does not serve`);
      }
    }
  }

  private serves(id: string): boolean {
    return this.backend.models().some((m) => m.id === id) || this.backend.acceptsModel?.(id) === true;
  }

  /** GET /v1/models with each entry's scoring method, where the backend says (probing it if need be). */
  async listModelsWithScoring(): Promise<ModelInfo[]> {
    const models = this.listModels();
    if (!this.backend.scoringOf) return models;
    return Promise.all(
      models.map(async (info) => {
        const scoring = await this.backend.scoringOf!(this.resolveModel(info.name));
        if (!scoring) return info;
        const { method, calibrated } = scoring;
        return { ...info, scoring: calibrated === undefined ? { method } : { method, calibrated } };
      }),
    );
  }

  /** GET /v1/models: the pinned models, then every alias described as the id it resolves to. */
  listModels(): ModelInfo[] {
    const models = this.backend.models();
    const byId = new Map<string, ModelDescriptor>(models.map((m) => [m.id, m]));
    const pinned = models.map((m) => ({ name: m.id, description: m.description, release_date: m.releaseDate }));
    const aliases = Object.entries(this.aliases).map(([alias, target]) => ({
      name: alias,
      description: `Alias of ${target}: ${byId.get(target)?.description ?? ''}`.trim(),
      release_date: byId.get(target)?.releaseDate ?? '',
    }));
    return [...pinned, ...aliases];
  }

  /** The pinned id for a requested name, or a 400 naming the known ones. */
  resolveModel(name: string): string {
    const target = Object.prototype.hasOwnProperty.call(this.aliases, name) ? this.aliases[name] : name;
    if (this.serves(target)) return target;
    const known = this.listModels().map((m) => m.name);
    throw badRequest(`Unknown model ${JSON.stringify(name)}. Available models: ${known.join(', ')}.`, 'invalid_model');
  }

  /** Answer one raw request body; throws ApiError (400/422) for bad input, BackendError for upstream failures. */
  async judge(body: unknown, signal?: AbortSignal): Promise<JudgeOutcome> {
    return this.answer(await this.prepareNow(body), signal);
  }

  /**
   * Everything before scoring: validate, resolve the model, render, and hold the token plan against the limits.
   * Throws ApiError (400/422). A server runs this before queueing, so bad requests are refused at once.
   */
  async prepare(body: unknown): Promise<PreparedJob> {
    return (await this.prepareWithPlan(body)).job;
  }

  /** `prepare`, also returning the token plan the job was held against (what a caller's own quota can check). */
  async prepareWithPlan(body: unknown): Promise<{ job: PreparedJob; plan: TokenPlan }> {
    const job = this.build(body);
    const plan = await this.planOf(job);
    this.holdToLimits(plan);
    return { job, plan };
  }

  /**
   * `prepare` without waiting when the backend plans its tokens synchronously (a promise otherwise). Throws
   * ApiError (400/422) at once for a bad request; a promise, if returned, may reject with one.
   */
  prepareNow(body: unknown): PreparedJob | Promise<PreparedJob> {
    const job = this.build(body);
    const plan = this.planOf(job);
    if (isPromise(plan)) {
      return plan.then((ready) => {
        this.holdToLimits(ready);
        return job;
      });
    }
    this.holdToLimits(plan);
    return job;
  }

  /** Validate, resolve the model and render. */
  private build(body: unknown): PreparedJob {
    const request = validateRequest(body, this.limits);
    const model = this.resolveModel(request.model);
    const rendered = renderRequest(request);
    return { model, state: request.state, rendered };
  }

  private planOf(job: PreparedJob): TokenPlan | Promise<TokenPlan> {
    return this.backend.planTokens ? this.backend.planTokens(job) : plainTokenPlanNow(this.backend, job);
  }

  /** Throws the 400 for a plan over the limits. */
  private holdToLimits(plan: TokenPlan): void {
    if (plan.longest > this.limits.maxSequenceTokens) {
      throw badRequest(
        `The state and the longest question need about ${plan.longest} tokens in one sequence; the limit is ` +
          `${this.limits.maxSequenceTokens}. Shorten the state or that question.`,
        'max_tokens_exceeded',
      );
    }
    if (plan.total > this.limits.maxInputTokens) {
      const passes = plan.statePasses ?? 1;
      const why = plan.passesWhy ?? 'once per prompt';
      const howOften = passes > 1 ? ` (the state is sent ${passes} times, ${why})` : '';
      throw badRequest(
        `The request needs about ${plan.total} input tokens${howOften}; the limit is ${this.limits.maxInputTokens}. ` +
          'Shorten the state or ask fewer questions.',
        'max_tokens_exceeded',
      );
    }
  }

  /** Score a prepared job and read out the answers; throws BackendError for upstream failures. */
  async answer(job: PreparedJob, signal?: AbortSignal): Promise<JudgeOutcome> {
    return this.answerJob({ ...job, signal });
  }

  /**
   * `answer` for a job that carries its own signal. A server passes a job whose `signal` is made when the backend
   * first reads it, so a backend that never looks at it costs no AbortSignal.
   */
  async answerJob(job: ScoreJob): Promise<JudgeOutcome> {
    const { model, rendered } = job;
    const result = await this.backend.score(job);
    const questions = rendered.questions;
    if (result.scores.length !== questions.length) {
      const expected = questions.length;
      throw new Error(`backend ${this.backend.kind} returned ${result.scores.length} scores for ${expected} questions`);
    }
    const answers: SystemOneResponse['answers'] = {};
    const coveredMass: JudgeOutcome['coveredMass'] = {};
    let minCoveredMass: number | undefined;
    for (let i = 0; i < questions.length; i++) {
      const question = questions[i];
      const scores = result.scores[i];
      const answer = readOut(question, scores.logprobs, this.temperatures);
      const scoring = scores.scoring ?? result.scoring;
      if (scoring) {
        answer.method = scoring.method;
        if (scoring.calibrated !== undefined) answer.calibrated = scoring.calibrated;
        if (scores.coveredMass !== undefined) answer.coverage = scores.coveredMass;
      }
      setOwn(answers, question.name, answer);
      setOwn(coveredMass, question.name, scores.coveredMass);
      if (scores.coveredMass !== undefined) {
        minCoveredMass =
          minCoveredMass === undefined ? scores.coveredMass : Math.min(minCoveredMass, scores.coveredMass);
      }
    }
    return {
      response: {
        model: result.model ?? model,
        answers,
        usage: { input_tokens: result.inputTokens, output_tokens: 0 },
      },
      coveredMass,
      minCoveredMass,
      ...(result.upstream ? { upstream: result.upstream } : {}),
    };
  }
}
