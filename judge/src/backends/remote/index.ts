// The remote System One backend: forwards a validated request to any System One provider (base URL + key),
// validates strictly what comes back, and hands the engine its distributions as log-probs.
import { BackendError, type Backend, type ModelDescriptor, type QuestionScores, type ScoreJob, type ScoreResult } from '../../engine/backend';
import type { RenderedQuestion } from '../../engine/backend';
import { ApiError } from '../../protocol/errors';
import type { Question } from '../../protocol/types';
import { setOwn } from '../../util/own';

export interface RemoteBackendOptions {
  /** The provider's API root, e.g. "https://api.typesafe.ai" (we call {baseUrl}/v1/systemone and /v1/models). */
  baseUrl: string;
  /** The provider key, from env or the config file; never logged. */
  apiKey: string;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
}

const SUM_TOLERANCE = 1e-4;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProbability(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
}

function invalid(reason: string): BackendError {
  return new BackendError(`The System One provider returned an invalid response: ${reason}.`, 502, 'upstream_invalid_response');
}

/** Strictly check one upstream answer against the question and turn it into log-probs over the options. */
export function answerToScores(question: RenderedQuestion, answer: unknown): QuestionScores {
  const where = `answers[${JSON.stringify(question.name)}]`;
  if (!isObject(answer)) throw invalid(`${where} is missing or not an object`);
  if (answer.type !== question.type) throw invalid(`${where}.type is ${JSON.stringify(answer.type)}, expected "${question.type}"`);
  if (question.type === 'noul') {
    if (!isProbability(answer.noul)) throw invalid(`${where}.noul is not a probability`);
    return { logprobs: [Math.log(answer.noul), Math.log(1 - answer.noul)] };
  }
  const probabilities = answer.probabilities;
  if (!isObject(probabilities)) throw invalid(`${where}.probabilities is not an object`);
  const keys = Object.keys(probabilities);
  if (keys.length !== question.options.length || question.options.some((o) => !(o in probabilities))) {
    throw invalid(`${where}.probabilities has labels ${JSON.stringify(keys)}, expected ${JSON.stringify(question.options)}`);
  }
  const values = question.options.map((option) => probabilities[option]);
  if (!values.every(isProbability)) throw invalid(`${where}.probabilities holds a value outside [0, 1]`);
  const sum = (values as number[]).reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > SUM_TOLERANCE) throw invalid(`${where}.probabilities sum to ${sum}, not 1`);
  if (question.type === 'choice' && (typeof answer.choice !== 'string' || !question.options.includes(answer.choice))) {
    throw invalid(`${where}.choice is not one of the labels`);
  }
  if (question.type === 'score' && (typeof answer.score !== 'number' || !Number.isFinite(answer.score))) {
    throw invalid(`${where}.score is not a number`);
  }
  return { logprobs: (values as number[]).map((p) => Math.log(p)) };
}

function detailOf(body: unknown): string {
  if (isObject(body)) {
    if (typeof body.detail === 'string') return body.detail;
    if (Array.isArray(body.detail)) {
      return body.detail
        .map((e) => (isObject(e) ? `${Array.isArray(e.loc) ? e.loc.join('.') : ''}: ${String(e.msg)}` : String(e)))
        .join('; ');
    }
  }
  return typeof body === 'string' ? body.slice(0, 200) : 'no detail';
}

export class RemoteBackend implements Backend {
  readonly kind = 'remote';

  constructor(
    private readonly options: RemoteBackendOptions,
    private readonly served: ModelDescriptor[],
  ) {}

  models(): ModelDescriptor[] {
    return this.served;
  }

  /** An estimate (one token per 4 characters) for the budget; usage comes from the provider's own count. */
  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const questions: Record<string, Question> = {};
    for (const q of job.rendered.questions) setOwn(questions, q.name, q.question);
    const body = await request(this.options, 'POST', '/v1/systemone', { model: job.model, state: job.state, questions }, job.signal);
    if (!isObject(body)) throw invalid('the body is not an object');
    if (!isObject(body.answers)) throw invalid('answers is not an object');
    const usage = body.usage;
    if (!isObject(usage) || !Number.isInteger(usage.input_tokens) || (usage.input_tokens as number) < 0) {
      throw invalid('usage.input_tokens is not a non-negative integer');
    }
    const answers = body.answers;
    const scores = job.rendered.questions.map((q) => answerToScores(q, Object.prototype.hasOwnProperty.call(answers, q.name) ? answers[q.name] : undefined));
    return { scores, inputTokens: usage.input_tokens as number };
  }
}

async function request(
  options: RemoteBackendOptions,
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const url = options.baseUrl.replace(/\/+$/, '') + path;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: payload === undefined ? undefined : JSON.stringify(payload),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (timeout.aborted) throw new BackendError(`The System One provider at ${options.baseUrl} timed out.`, 504, 'upstream_timeout');
    throw new BackendError(`Could not reach the System One provider at ${options.baseUrl}: ${(error as Error).message}`, 502, 'upstream_unreachable');
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    if (response.ok) throw invalid('the body is not JSON');
  }
  if (response.ok) return body;
  const detail = detailOf(body);
  if (response.status === 401 || response.status === 403) {
    throw new BackendError(`The System One provider refused this server's key (${response.status}): ${detail}`, 502, 'upstream_auth_failed');
  }
  if (response.status === 400 || response.status === 422) {
    throw new ApiError(400, `The System One provider refused the request: ${detail}`, 'upstream_rejected');
  }
  if (response.status === 429) throw new BackendError(`The System One provider is rate-limiting: ${detail}`, 503, 'upstream_rate_limited');
  throw new BackendError(`The System One provider failed (${response.status}): ${detail}`, 502, 'upstream_error');
}

/** Connects to the provider and lists its models (which are what this backend serves). */
export async function createRemoteBackend(options: RemoteBackendOptions): Promise<RemoteBackend> {
  const body = await request(options, 'GET', '/v1/models');
  if (!isObject(body) || !Array.isArray(body.models)) throw invalid('GET /v1/models did not return {models: [...]}');
  const served = body.models.map((m, i): ModelDescriptor => {
    if (!isObject(m) || typeof m.name !== 'string') throw invalid(`models[${i}].name is not a string`);
    return {
      id: m.name,
      description: typeof m.description === 'string' ? m.description : '',
      releaseDate: typeof m.release_date === 'string' ? m.release_date : '',
    };
  });
  return new RemoteBackend(options, served);
}
