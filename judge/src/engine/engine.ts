// The engine: validate → resolve the model → render → check the token budget → backend.score → read out.
import { defaultAliases } from './aliases';
import type { Backend, ModelDescriptor, ScoreJob, TokenPlan } from './backend';
import { readOut, type Temperatures } from './readout';
import { setOwn } from '../util/own';
import { renderRequest } from './render';
import { badRequest } from '../protocol/errors';
import type { ModelInfo, SystemOneResponse } from '../protocol/types';
import { DEFAULT_VALIDATION_LIMITS, validateRequest, type ValidationLimits } from '../protocol/validate';

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
}

/** The plan of a backend that sends the state once and every question suffix once (the default). */
export async function plainTokenPlan(backend: Backend, job: Omit<ScoreJob, 'signal'>): Promise<TokenPlan> {
  const state = await backend.countTokens(job.model, job.rendered.prefix);
  let total = state;
  let longestSuffix = 0;
  for (const question of job.rendered.questions) {
    const suffix = await backend.countTokens(job.model, question.suffix);
    total += suffix;
    longestSuffix = Math.max(longestSuffix, suffix);
  }
  return { total, longest: state + longestSuffix, statePasses: 1 };
}

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
    return this.answer(await this.prepare(body), signal);
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
    const request = validateRequest(body, this.limits);
    const model = this.resolveModel(request.model);
    const rendered = renderRequest(request);
    const job: PreparedJob = { model, state: request.state, rendered };

    const plan = await (this.backend.planTokens ? this.backend.planTokens(job) : plainTokenPlan(this.backend, job));
    if (plan.longest > this.limits.maxSequenceTokens) {
      throw badRequest(
        `The state and the longest question need about ${plan.longest} tokens in one sequence; the limit is ` +
          `${this.limits.maxSequenceTokens}. Shorten the state or that question.`,
        'max_tokens_exceeded',
      );
    }
    if (plan.total > this.limits.maxInputTokens) {
      const passes = plan.statePasses ?? 1;
      const howOften = passes > 1 ? ` (the state is sent ${passes} times, once per prompt)` : '';
      throw badRequest(
        `The request needs about ${plan.total} input tokens${howOften}; the limit is ${this.limits.maxInputTokens}. ` +
          'Shorten the state or ask fewer questions.',
        'max_tokens_exceeded',
      );
    }
    return { job, plan };
  }

  /** Score a prepared job and read out the answers; throws BackendError for upstream failures. */
  async answer(job: PreparedJob, signal?: AbortSignal): Promise<JudgeOutcome> {
    const { model, rendered } = job;
    const result = await this.backend.score({ ...job, signal });
    if (result.scores.length !== rendered.questions.length) {
      const expected = rendered.questions.length;
      throw new Error(`backend ${this.backend.kind} returned ${result.scores.length} scores for ${expected} questions`);
    }
    const answers: SystemOneResponse['answers'] = {};
    const coveredMass: JudgeOutcome['coveredMass'] = {};
    rendered.questions.forEach((question, i) => {
      setOwn(answers, question.name, readOut(question, result.scores[i].logprobs, this.temperatures));
      setOwn(coveredMass, question.name, result.scores[i].coveredMass);
    });
    return {
      response: {
        model: result.model ?? model,
        answers,
        usage: { input_tokens: result.inputTokens, output_tokens: 0 },
      },
      coveredMass,
    };
  }
}
