// The OpenAI-compatible LLM backend (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter, …).
// Every question (or option group) is its own chat completion with logprobs, top_logprobs ≤ 20, one output token
// and temperature 0; the first token's top_logprobs are folded onto the labels (see fold.ts).
//
// Why the `openai` client and not @langchain/openai: we need the raw `choices[0].logprobs.content[0].top_logprobs`
// and `usage.prompt_tokens` of a one-token completion, nothing of LangChain's message/tool layer; and we run our own
// retry loop so that a 429's Retry-After is honoured but capped (the client would sleep for whatever the server says).
import { setMaxListeners } from 'node:events';
import OpenAI from 'openai';
import {
  BackendError,
  type Backend,
  type ModelDescriptor,
  type QuestionScores,
  type ScoreJob,
  type ScoreResult,
  type TokenPlan,
} from '../../engine/backend';
import { plannedGroups, scoreInGroups } from '../../engine/groups';
import type { OptionGroup } from '../../engine/render';
import { ConcurrencyLimiter } from '../../util/limiter';
import { retryAfterMs } from '../../util/retry-after';
import { foldTopLogprobs, type TopLogprob } from './fold';
import type { OpenAIBackendOptions } from './options';

export { retryAfterMs } from '../../util/retry-after';
export type { OpenAIBackendOptions } from './options';

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export class OpenAIBackend implements Backend {
  readonly kind = 'openai';
  private readonly client: OpenAI;
  private readonly limiter: ConcurrencyLimiter;
  private readonly groupSize: number;
  private readonly topLogprobs: number;
  private readonly maxRetries: number;
  private readonly maxRetryAfterMs: number;

  constructor(private readonly options: OpenAIBackendOptions) {
    this.groupSize = options.groupSize ?? 15;
    this.topLogprobs = options.topLogprobs ?? 20;
    if (this.topLogprobs < 1 || this.topLogprobs > 20) throw new Error('openai.topLogprobs must be 1..20');
    if (this.groupSize < 2 || this.groupSize > 20) throw new Error('openai.groupSize must be 2..20');
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.limiter = new ConcurrencyLimiter(options.concurrency ?? 4);
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey || 'not-needed',
      maxRetries: 0,
      timeout: options.timeoutMs ?? 60_000,
    });
  }

  models(): ModelDescriptor[] {
    return [
      {
        id: this.options.id,
        description: this.options.description ?? `${this.options.upstreamModel} via an OpenAI-compatible server`,
        releaseDate: this.options.releaseDate ?? '',
      },
    ];
  }

  /** An estimate (one token per 4 characters): arbitrary upstream models come without a tokenizer here. */
  countTokens(_model: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  /** Every question (or option group) is its own prompt, and every prompt carries the whole state. */
  planTokens(job: Omit<ScoreJob, 'signal'>): TokenPlan {
    const plan: TokenPlan = { total: 0, longest: 0, statePasses: 0 };
    for (const question of job.rendered.questions) {
      for (const group of plannedGroups(question, this.groupSize)) {
        const tokens = this.countTokens(job.model, job.rendered.prefix + group.suffix);
        plan.total += tokens;
        plan.longest = Math.max(plan.longest, tokens);
        plan.statePasses!++;
      }
    }
    return plan;
  }

  async score(job: ScoreJob): Promise<ScoreResult> {
    // One signal for every upstream call of this job: the caller going away, the deadline, or the first failed
    // question aborts the others (their queued and sleeping calls included).
    const siblings = new AbortController();
    setMaxListeners(0, siblings.signal);
    const onCallerAbort = () => siblings.abort(job.signal?.reason);
    if (job.signal?.aborted) onCallerAbort();
    job.signal?.addEventListener('abort', onCallerAbort, { once: true });
    let inputTokens = 0;
    try {
      const scores = await Promise.all(
        job.rendered.questions.map((question) =>
          scoreInGroups(question, this.groupSize, async (group) => {
            const prompt = job.rendered.prefix + group.suffix;
            const { scores, promptTokens } = await this.askGroup(prompt, group, siblings.signal);
            inputTokens += promptTokens;
            return scores;
          }).catch((error: unknown) => {
            siblings.abort(error);
            throw error;
          }),
        ),
      );
      return { scores, inputTokens };
    } finally {
      job.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private async askGroup(
    prompt: string,
    group: OptionGroup,
    signal: AbortSignal,
  ): Promise<{ scores: QuestionScores; promptTokens: number }> {
    const completion = await this.createWithRetries(prompt, signal);
    const top = completion.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs as TopLogprob[] | undefined;
    if (!Array.isArray(top) || top.length === 0) {
      throw new BackendError(
        `The OpenAI-compatible server at ${this.options.baseUrl} returned no logprobs for model ` +
          `"${this.options.upstreamModel}". The judge needs a server and model that support logprobs with ` +
          'top_logprobs (e.g. vLLM, llama.cpp server, OpenAI).',
        502,
        'logprobs_unsupported',
      );
    }
    const folded = foldTopLogprobs(top, group.labels);
    if (folded.coveredMass === 0) {
      throw new BackendError(
        `Model "${this.options.upstreamModel}" put none of its top ${top.length} first tokens on the answer labels ` +
          `(${group.labels.join(', ')}); it does not follow the answer format.`,
        502,
        'labels_not_covered',
      );
    }
    return {
      scores: { logprobs: folded.logprobs, coveredMass: folded.coveredMass },
      promptTokens: completion.usage?.prompt_tokens ?? Math.ceil(prompt.length / 4),
    };
  }

  /**
   * One completion, retried after 429/408/5xx/connection errors (a spending cap's 402 is not retried). Each attempt
   * takes a slot of the limiter and gives it back when it ends: the waits between attempts hold no slot.
   */
  private async createWithRetries(prompt: string, signal: AbortSignal): Promise<OpenAI.Chat.ChatCompletion> {
    const where = `The OpenAI-compatible server at ${this.options.baseUrl}`;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.limiter.run(
          () =>
            this.client.chat.completions.create(
              {
                model: this.options.upstreamModel,
                messages: [{ role: 'user', content: prompt }],
                max_tokens: 1,
                temperature: 0,
                logprobs: true,
                top_logprobs: this.topLogprobs,
              },
              { signal },
            ),
          signal,
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        const status = error instanceof OpenAI.APIError ? error.status : undefined;
        const message = error instanceof Error ? error.message : String(error);
        const refusal = budgetRefusal(error, where);
        if (refusal) throw refusal;
        const retryable =
          error instanceof OpenAI.APIConnectionError || status === 429 || status === 408 || (status ?? 0) >= 500;
        if (!retryable) {
          const auth = status === 401 || status === 403;
          throw new BackendError(
            `${where} refused the request (${status ?? 'error'}): ${message}`,
            502,
            auth ? 'upstream_auth_failed' : 'upstream_rejected',
            { cause: error },
          );
        }
        const asked = error instanceof OpenAI.APIError ? retryAfterMs(error.headers as Headers | undefined) : undefined;
        if (attempt >= this.maxRetries) {
          if (error instanceof OpenAI.APIConnectionTimeoutError) {
            throw new BackendError(`${where} timed out.`, 504, 'upstream_timeout', { cause: error });
          }
          if (status === 429) {
            throw new BackendError(
              `${where} kept rate-limiting after ${this.maxRetries} retries: ${message}`,
              503,
              'upstream_rate_limited',
              { retryAfterMs: asked, cause: error },
            );
          }
          const failed = `${where} failed after ${this.maxRetries} retries: ${message}`;
          throw new BackendError(failed, 502, 'upstream_error', { cause: error });
        }
        if (asked !== undefined && asked > this.maxRetryAfterMs) {
          throw new BackendError(
            `${where} asked to retry after ${Math.round(asked / 1000)} s, longer than the ` +
              `${this.maxRetryAfterMs / 1000} s allowed.`,
            503,
            'upstream_rate_limited',
            { retryAfterMs: asked, cause: error },
          );
        }
        const backoff = Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);
        await sleep(asked ?? backoff, signal);
      }
    }
  }
}

/**
 * A 402 whose error code is `budget_exceeded`: our model gateway refusing the call because a spending cap has no
 * room. Its message is the gateway's own sentence (which budget is spent, when it resets), not a third party's text,
 * so the caller gets it as it is. Never retried: the cap does not open again within the request.
 */
function budgetRefusal(error: unknown, where: string): BackendError | undefined {
  if (!(error instanceof OpenAI.APIError) || error.status !== 402 || error.code !== 'budget_exceeded') return undefined;
  const said = (error.error as { message?: unknown } | undefined)?.message;
  const sentence = typeof said === 'string' && said.trim() !== '' ? said.trim() : 'A spending cap has no room.';
  return new BackendError(`${where} refused the request (402 budget_exceeded): ${sentence}`, 402, 'budget_exceeded', {
    publicMessage: sentence,
    cause: error,
  });
}

export async function createOpenAIBackend(options: OpenAIBackendOptions): Promise<OpenAIBackend> {
  return new OpenAIBackend(options);
}
