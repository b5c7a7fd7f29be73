// The remote System One backend: forwards a validated request to any System One provider (base URL + key),
// validates strictly what comes back, and hands the engine its distributions as log-probs.
//
// How each answer was read is passed through from the provider where it says (another judge sends `method`,
// `calibrated` and `coverage` on each answer and `scoring` per model in GET /v1/models). Where it does not, the
// answer's method is "remote" and `calibrated` is left out: the numbers come from a model this server cannot see,
// so it claims neither way (the types allow absent, and absent is what the SDK and callers already handle).
//
// Real Jev answers are accepted as they come: probabilities rounded to 2 decimals (0.33/0.33/0.33), the provider's
// own versioned model id in the response (kept), and pinned ids the provider does not list. Upstream URLs and
// upstream error text go to the log (BackendError.message), never to callers (BackendError.publicMessage).
import { LATEST_SUFFIX, parseModelId } from '../../engine/aliases';
import {
  BackendError,
  type Backend,
  type ModelDescriptor,
  type QuestionScores,
  type RenderedQuestion,
  type ScoreJob,
  type ScoreResult,
  type ScoringMethod,
} from '../../engine/backend';
import type { Question } from '../../protocol/types';
import { setOwn } from '../../util/own';
import { retryAfterMs } from '../../util/retry-after';
import type { RemoteBackendOptions } from './options';

export type { RemoteBackendOptions } from './options';

/**
 * How far a distribution may sum from 1: Jev rounds every probability to 2 decimals, so each may be off by 0.005.
 * The engine renormalises what it accepts.
 */
const ROUNDING_PER_VALUE = 0.005;
const SUM_SLACK = 1e-6;
/** Versioned ids the provider answered with, remembered so that callers may pin them. */
const MAX_SEEN_MODELS = 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProbability(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
}

function invalid(reason: string): BackendError {
  return new BackendError(
    `The System One provider returned an invalid response: ${reason}.`,
    502,
    'upstream_invalid_response',
  );
}

/** A provider that does not say how it scored: its method is "remote", its calibration unknown (left out). */
export const REMOTE_SCORING: ScoringMethod = { method: 'remote' };

const METHOD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The provider's `method` and `calibrated` at `where` (an answer or a model entry), checked; undefined when absent. */
export function providerScoring(where: string, fields: Record<string, unknown>): ScoringMethod | undefined {
  const { method, calibrated } = fields;
  if (method === undefined && calibrated === undefined) return undefined;
  if (method !== undefined && (typeof method !== 'string' || !METHOD_NAME.test(method))) {
    throw invalid(`${where}.method is not a method name (snake_case, at most 64 characters)`);
  }
  if (calibrated !== undefined && typeof calibrated !== 'boolean')
    throw invalid(`${where}.calibrated is not a boolean`);
  return { method: method ?? REMOTE_SCORING.method, ...(calibrated === undefined ? {} : { calibrated }) };
}

/** Strictly check one upstream answer against the question and turn it into log-probs over the options. */
export function answerToScores(question: RenderedQuestion, answer: unknown): QuestionScores {
  const where = `answers[${JSON.stringify(question.name)}]`;
  if (!isObject(answer)) throw invalid(`${where} is missing or not an object`);
  if (answer.type !== question.type) {
    throw invalid(`${where}.type is ${JSON.stringify(answer.type)}, expected "${question.type}"`);
  }
  if (answer.coverage !== undefined && !isProbability(answer.coverage)) {
    throw invalid(`${where}.coverage is not a number in [0, 1]`);
  }
  const scoring = providerScoring(where, answer);
  const said = {
    ...(scoring ? { scoring } : {}),
    ...(answer.coverage === undefined ? {} : { coveredMass: answer.coverage as number }),
  };
  return { ...answerLogprobs(question, answer, where), ...said };
}

/** The answer's distribution as log-probs over the question's options, checked strictly. */
function answerLogprobs(question: RenderedQuestion, answer: Record<string, unknown>, where: string): QuestionScores {
  if (question.type === 'noul') {
    if (!isProbability(answer.noul)) throw invalid(`${where}.noul is not a probability`);
    return { logprobs: [Math.log(answer.noul), Math.log(1 - answer.noul)] };
  }
  const probabilities = answer.probabilities;
  if (!isObject(probabilities)) throw invalid(`${where}.probabilities is not an object`);
  const keys = Object.keys(probabilities);
  const has = (option: string) => Object.prototype.hasOwnProperty.call(probabilities, option);
  if (keys.length !== question.options.length || !question.options.every(has)) {
    const expected = JSON.stringify(question.options);
    throw invalid(`${where}.probabilities has labels ${JSON.stringify(keys)}, expected ${expected}`);
  }
  const values = question.options.map((option) => probabilities[option]);
  if (!values.every(isProbability)) throw invalid(`${where}.probabilities holds a value outside [0, 1]`);
  const sum = (values as number[]).reduce((a, b) => a + b, 0);
  const tolerance = ROUNDING_PER_VALUE * values.length + SUM_SLACK;
  if (Math.abs(sum - 1) > tolerance) throw invalid(`${where}.probabilities sum to ${sum}, not 1 (±${tolerance})`);
  if (question.type === 'choice' && (typeof answer.choice !== 'string' || !question.options.includes(answer.choice))) {
    throw invalid(`${where}.choice is not one of the labels`);
  }
  if (question.type === 'score' && (typeof answer.score !== 'number' || !Number.isFinite(answer.score))) {
    throw invalid(`${where}.score is not a number`);
  }
  return { logprobs: (values as number[]).map((p) => Math.log(p)) };
}

interface ProviderError {
  /** The upstream's error type when it looks like one (a short snake_case code), else undefined. */
  errorType?: string;
  /** The upstream's own words, for the log. */
  text: string;
}

const ERROR_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** Reads a provider error body: Jev's {"detail": {"error_type", "message"}}, a 422 list, or older shapes. */
function providerError(body: unknown): ProviderError {
  const code = (value: unknown) => (typeof value === 'string' && ERROR_TYPE.test(value) ? value : undefined);
  if (isObject(body)) {
    const detail = body.detail;
    if (isObject(detail)) {
      const message = typeof detail.message === 'string' ? detail.message : JSON.stringify(detail);
      return { errorType: code(detail.error_type), text: message };
    }
    if (typeof detail === 'string') return { errorType: code(body.error_type), text: detail };
    if (Array.isArray(detail)) {
      const text = detail
        .map((e) => (isObject(e) ? `${Array.isArray(e.loc) ? e.loc.join('.') : ''}: ${String(e.msg)}` : String(e)))
        .join('; ');
      return { errorType: 'invalid_request_error', text };
    }
  }
  return { text: typeof body === 'string' ? body.slice(0, 200) : 'no detail' };
}

/** What a caller is told when the provider refuses a request it was forwarded (a 400). */
const REJECTION_MESSAGES: Readonly<Record<string, string>> = {
  max_tokens_exceeded:
    "The request is over the System One provider's token limit. Shorten the state or ask fewer questions.",
  invalid_model: 'The System One provider does not serve the requested model.',
};

export class RemoteBackend implements Backend {
  readonly kind = 'remote';
  private readonly seen = new Set<string>();
  /** Per model id, how the provider said it scores: its model list at start, then its latest answers. */
  private readonly scorings: Map<string, ScoringMethod>;

  constructor(
    private readonly options: RemoteBackendOptions,
    private readonly served: ModelDescriptor[],
    listedScorings: ReadonlyMap<string, ScoringMethod> = new Map(),
  ) {
    this.scorings = new Map(listedScorings);
  }

  /** What the provider last said for `model` (in its model list or on its answers), else "remote". */
  scoringOf(model: string): Promise<ScoringMethod> {
    return Promise.resolve(this.scorings.get(model) ?? REMOTE_SCORING);
  }

  models(): ModelDescriptor[] {
    return this.served;
  }

  /**
   * Besides the listed ids: ids the provider has answered with, and pinned versions `<name>-<version>` of a name it
   * lists (as `<name>-latest` or another version). The provider has the last word.
   */
  acceptsModel(model: string): boolean {
    if (this.seen.has(model)) return true;
    const name = parseModelId(model)?.name;
    if (name === undefined) return false;
    return this.served.some((m) => m.id === name + LATEST_SUFFIX || parseModelId(m.id)?.name === name);
  }

  /** An estimate (one token per 4 characters) for the budget; usage comes from the provider's own count. */
  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    const questions: Record<string, Question> = {};
    for (const q of job.rendered.questions) setOwn(questions, q.name, q.question);
    const payload = { model: job.model, state: job.state, questions };
    const body = await request(this.options, 'POST', '/v1/systemone', payload, job.signal);
    if (!isObject(body)) throw invalid('the body is not an object');
    if (!isObject(body.answers)) throw invalid('answers is not an object');
    const usage = body.usage;
    if (!isObject(usage) || !Number.isInteger(usage.input_tokens) || (usage.input_tokens as number) < 0) {
      throw invalid('usage.input_tokens is not a non-negative integer');
    }
    const answers = body.answers;
    const scores = job.rendered.questions.map((q) =>
      answerToScores(q, Object.prototype.hasOwnProperty.call(answers, q.name) ? answers[q.name] : undefined),
    );
    // The provider's versioned id (it resolves its own aliases: "jev-latest" → "jev-1.13.0").
    const model = typeof body.model === 'string' && body.model.length > 0 ? body.model : job.model;
    if (this.seen.size < MAX_SEEN_MODELS) this.seen.add(model);
    this.remember([job.model, model], scores);
    return { scores, inputTokens: usage.input_tokens as number, model, scoring: REMOTE_SCORING };
  }

  /** Keeps the provider's method for these ids when every answer names the same one (a mixed job says nothing). */
  private remember(ids: string[], scores: QuestionScores[]): void {
    const said = scores[0]?.scoring;
    const same = (s: QuestionScores) =>
      s.scoring?.method === said?.method && s.scoring?.calibrated === said?.calibrated;
    if (!said || !scores.every(same)) return;
    for (const id of ids)
      if (this.scorings.has(id) || this.scorings.size < MAX_SEEN_MODELS) this.scorings.set(id, said);
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
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  /** A failure while connecting or while reading the answer: the caller's abort, our timeout, or the network. */
  const failed = (error: unknown, stage: string): unknown => {
    if (signal?.aborted) return signal.reason;
    if (timeout.aborted) {
      return new BackendError(
        `The System One provider at ${url} did not answer within ${timeoutMs} ms (${stage}).`,
        504,
        'upstream_timeout',
        { cause: error },
      );
    }
    const reason = (error as Error).message;
    return new BackendError(
      `Could not reach the System One provider at ${url} (${stage}): ${reason}`,
      502,
      'upstream_unreachable',
      { cause: error },
    );
  };
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
      signal: combined,
    });
  } catch (error) {
    throw failed(error, 'connecting');
  }
  try {
    // A provider that sends its headers and then stalls is caught here, by the same timeout.
    text = await response.text();
  } catch (error) {
    throw failed(error, 'reading the answer');
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    if (response.ok) throw invalid('the body is not JSON');
  }
  if (response.ok) return body;
  const upstream = providerError(body);
  const said = `${response.status} ${upstream.errorType ?? ''} ${upstream.text}`.replace(/\s+/g, ' ');
  if (response.status === 401 || response.status === 403) {
    throw new BackendError(
      `The System One provider at ${url} refused this server's key: ${said}`,
      502,
      'upstream_auth_failed',
    );
  }
  // A 404 with an error type refuses the request (e.g. an unknown model); one without is a wrong base URL.
  const refused = response.status === 404 ? upstream.errorType !== undefined : [400, 422].includes(response.status);
  if (refused) {
    const errorType = upstream.errorType ?? 'upstream_rejected';
    throw new BackendError(`The System One provider at ${url} refused the request: ${said}`, 400, errorType, {
      publicMessage: REJECTION_MESSAGES[errorType] ?? 'The System One provider refused the request.',
    });
  }
  if (response.status === 402 && upstream.errorType === 'budget_exceeded') {
    // A judge in front of our model gateway passing on a spending cap's refusal: its words are the gateway's own
    // sentence (which budget is spent, when it resets), so, for this error alone, the caller gets them.
    const sentence = upstream.text.slice(0, 500);
    throw new BackendError(`The System One provider at ${url} refused the request: ${said}`, 402, 'budget_exceeded', {
      publicMessage: sentence,
    });
  }
  if (response.status === 429) {
    throw new BackendError(
      `The System One provider at ${url} is rate-limiting: ${said}`,
      503,
      'upstream_rate_limited',
      {
        retryAfterMs: retryAfterMs(response.headers),
      },
    );
  }
  throw new BackendError(`The System One provider at ${url} failed: ${said}`, 502, 'upstream_error');
}

/** Connects to the provider and lists its models (which are what this backend serves). */
export async function createRemoteBackend(options: RemoteBackendOptions): Promise<RemoteBackend> {
  const body = await request(options, 'GET', '/v1/models');
  if (!isObject(body) || !Array.isArray(body.models)) throw invalid('GET /v1/models did not return {models: [...]}');
  const scorings = new Map<string, ScoringMethod>();
  const served = body.models.map((m, i): ModelDescriptor => {
    if (!isObject(m) || typeof m.name !== 'string') throw invalid(`models[${i}].name is not a string`);
    if (m.scoring !== undefined) {
      if (!isObject(m.scoring)) throw invalid(`models[${i}].scoring is not an object`);
      const scoring = providerScoring(`models[${i}].scoring`, m.scoring);
      if (scoring) scorings.set(m.name, scoring);
    }
    return {
      id: m.name,
      description: typeof m.description === 'string' ? m.description : '',
      releaseDate: typeof m.release_date === 'string' ? m.release_date : '',
    };
  });
  return new RemoteBackend(options, served, scorings);
}
