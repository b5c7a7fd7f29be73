// The engine: validate → resolve the model → render → check the token budget → backend.score → read out.
import type { Backend, ModelDescriptor } from './backend';
import { readOut, type Temperatures } from './readout';
import { setOwn } from '../util/own';
import { renderRequest } from './render';
import { badRequest } from '../protocol/errors';
import type { ModelInfo, SystemOneResponse } from '../protocol/types';
import { DEFAULT_VALIDATION_LIMITS, validateRequest, type ValidationLimits } from '../protocol/validate';

export interface EngineLimits extends ValidationLimits {
  /** Most input tokens one request may cost (state once + every question suffix). */
  maxInputTokens: number;
}

export const DEFAULT_ENGINE_LIMITS: EngineLimits = { ...DEFAULT_VALIDATION_LIMITS, maxInputTokens: 32_768 };

/** The moving name a request may use for "the current model" (the TypeSafe SDK's default model name). */
export const DEFAULT_ALIAS = 'jev-latest';

/** The aliases when none are configured: DEFAULT_ALIAS → the backend's first model (none when it serves none). */
export function defaultAliases(models: ModelDescriptor[]): Record<string, string> {
  const firstModel = models[0]?.id;
  return firstModel ? { [DEFAULT_ALIAS]: firstModel } : {};
}

export interface EngineOptions {
  backend: Backend;
  /** Moving names → pinned ids, e.g. {"jev-latest": "judge-openai-2026-11-01"}. Default: defaultAliases. */
  aliases?: Record<string, string>;
  limits?: Partial<EngineLimits>;
  temperatures?: Temperatures;
}

export interface JudgeOutcome {
  response: SystemOneResponse;
  /** Probability mass the model put on each question's labels, where the backend knows it. */
  coveredMass: Record<string, number | undefined>;
}

export class JudgeEngine {
  readonly backend: Backend;
  readonly limits: EngineLimits;
  private readonly aliases: Record<string, string>;
  private readonly temperatures: Temperatures;

  constructor(options: EngineOptions) {
    this.backend = options.backend;
    this.aliases = { ...(options.aliases ?? defaultAliases(this.backend.models())) };
    this.limits = { ...DEFAULT_ENGINE_LIMITS, ...(options.limits ?? {}) };
    this.temperatures = { ...(options.temperatures ?? {}) };
    const ids = new Set(this.backend.models().map((m) => m.id));
    for (const [alias, target] of Object.entries(this.aliases)) {
      if (!ids.has(target)) {
        throw new Error(`alias "${alias}" points to "${target}", which backend "${this.backend.kind}" does not serve`);
      }
    }
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
    const target = this.aliases[name] ?? name;
    if (this.backend.models().some((m) => m.id === target)) return target;
    const known = this.listModels().map((m) => m.name);
    throw badRequest(`Unknown model ${JSON.stringify(name)}. Available models: ${known.join(', ')}.`, 'invalid_model');
  }

  /** Answer one raw request body; throws ApiError (400/422) for bad input, BackendError for upstream failures. */
  async judge(body: unknown, signal?: AbortSignal): Promise<JudgeOutcome> {
    const request = validateRequest(body, this.limits);
    const model = this.resolveModel(request.model);
    const rendered = renderRequest(request);

    let budget = await this.backend.countTokens(model, rendered.prefix);
    for (const question of rendered.questions) budget += await this.backend.countTokens(model, question.suffix);
    if (budget > this.limits.maxInputTokens) {
      throw badRequest(
        `The request needs about ${budget} input tokens; the limit is ${this.limits.maxInputTokens}. Shorten the state or ask fewer questions.`,
        'max_tokens_exceeded',
      );
    }

    const result = await this.backend.score({ model, state: request.state, rendered, signal });
    if (result.scores.length !== rendered.questions.length) {
      throw new Error(`backend ${this.backend.kind} returned ${result.scores.length} scores for ${rendered.questions.length} questions`);
    }
    const answers: SystemOneResponse['answers'] = {};
    const coveredMass: JudgeOutcome['coveredMass'] = {};
    rendered.questions.forEach((question, i) => {
      setOwn(answers, question.name, readOut(question, result.scores[i].logprobs, this.temperatures));
      setOwn(coveredMass, question.name, result.scores[i].coveredMass);
    });
    return {
      response: { model, answers, usage: { input_tokens: result.inputTokens, output_tokens: 0 } },
      coveredMass,
    };
  }
}
