// The OpenAI-compatible LLM backend (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter, Anthropic's layer, …).
// Every question (or option group) is its own chat completion. While the upstream returns logprobs, each is asked
// with logprobs, top_logprobs ≤ 20, one output token and temperature 0, and the first token's top_logprobs are
// folded onto the labels (fold.ts). The first reply without them (or a 400 refusing them) switches the backend to
// the sampling fallback (sampling.ts); the switch is kept, and `probe()` asks again on demand. The explicit probe may
// instead pick an engine-native route (native.ts): SGLang's /generate with the labels' ids, llama.cpp's /completion.
import { setMaxListeners } from 'node:events';
import type OpenAI from 'openai';
import {
  BackendError,
  type Backend,
  type ModelDescriptor,
  type QuestionScores,
  type RenderedQuestion,
  type ScoreJob,
  type ScoreResult,
  type ScoringMethod,
  type TokenPlan,
} from '../../engine/backend';
import { logNormalise, plannedGroups, scoreInGroups } from '../../engine/groups';
import { MAX_SINGLE_TOKEN_OPTIONS, renderRequest, renderWithLabels, type OptionGroup } from '../../engine/render';
import { addUpstreamTokens, noUpstreamTokens, type UpstreamTokens } from '../../keys/types';
import { foldTopLogprobs, type TopLogprob } from './fold';
import { LabelTokenIds, OUTSIDE_LABEL } from './label-ids';
import {
  identifyEngine,
  llamacppRequest,
  llamacppScores,
  llamacppTokens,
  sglangRequest,
  sglangScores,
  sglangTokens,
  type FoldedReply,
  type LlamacppCompletionReply,
  type SglangGenerateReply,
} from './native';
import type { OpenAIBackendOptions, ScoringSetting } from './options';
import { scoresFromSamples } from './sampling';
import { ChatUpstream, parseBaseUrls, refusesLogprobs } from './upstream';

export { retryAfterMs } from '../../util/retry-after';
export type { OpenAIBackendOptions } from './options';

/** The methods this backend scores with. */
export const OPENAI_SCORING = {
  exact_label_ids: { method: 'exact_label_ids', calibrated: true },
  top_logprobs: { method: 'top_logprobs', calibrated: true },
  samples: { method: 'samples', calibrated: false },
} as const satisfies Record<string, ScoringMethod>;
export type OpenAIScoring = keyof typeof OPENAI_SCORING;

/**
 * Where prompts are scored: the OpenAI-compatible chat route, SGLang's native /generate (label ids named), or
 * llama.cpp's native /completion (top `n_probs`). Only the explicit probe picks a native route.
 */
export type ScoringRoute = 'chat' | 'sglang' | 'llamacpp';

/** What one prompt cost upstream and what it gave. */
interface Asked {
  scores: QuestionScores;
  /** The judge's metered input tokens: the upstream's prompt_tokens (estimated when it gives none). */
  promptTokens: number;
  /** What the upstream reported, summed over the prompt's calls. */
  upstream: UpstreamTokens;
}

/** What a completion's `usage` reports; missing counts are 0. */
function upstreamTokensOf(completion: OpenAI.Chat.ChatCompletion): UpstreamTokens {
  const usage = completion.usage;
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
  };
}

/**
 * Upstream requests in flight by default: every question of a call at once (a serving engine batches them and its
 * prefix cache serves the shared state once); 1 once the upstream shows it is an Ollama.
 */
export const SERVING_ENGINE_CONCURRENCY = 32;

/** A chat completion request with logprobs, and vLLM's `logprob_token_ids` where used. */
type LogprobsRequest = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming & { logprob_token_ids?: number[] };

const neverAborted = () => new AbortController().signal;

/** One prompt's scores over all the options, normalised as grouping would. */
const normalised = (scores: QuestionScores): QuestionScores => ({ ...scores, logprobs: logNormalise(scores.logprobs) });

/** The probe's prompt: a tiny noul question, rendered as every real one is. */
const PROBE = renderRequest({
  state: 'The sky is blue.',
  questions: { probe: { type: 'noul', instructions: 'Is the sky blue?' } },
});

export class OpenAIBackend implements Backend {
  readonly kind = 'openai';
  private readonly upstream: ChatUpstream;
  private readonly groupSize: number;
  private readonly topLogprobs: number;
  private readonly scoring: ScoringSetting;
  private readonly samples: number;
  private readonly sampleMaxTokens: number;
  private readonly minCoverage: number;
  /** The method in use: pinned by the setting, or learned from the upstream's replies (undefined until then). */
  private method?: OpenAIScoring;
  private probing?: Promise<OpenAIScoring>;
  private route: ScoringRoute = 'chat';
  private readonly labelIds: LabelTokenIds;
  /** Whether `concurrency` was set (else it follows the upstream: one at a time for an Ollama). */
  private readonly concurrencyPinned: boolean;

  constructor(private readonly options: OpenAIBackendOptions) {
    this.groupSize = options.groupSize ?? 15;
    this.topLogprobs = options.topLogprobs ?? 20;
    if (this.topLogprobs < 1 || this.topLogprobs > 20) throw new Error('openai.topLogprobs must be 1..20');
    if (this.groupSize < 2 || this.groupSize > 20) throw new Error('openai.groupSize must be 2..20');
    this.scoring = options.scoring ?? 'auto';
    this.method = this.scoring === 'auto' ? undefined : this.scoring;
    this.samples = options.samples ?? 8;
    this.sampleMaxTokens = options.sampleMaxTokens ?? 16;
    this.minCoverage = options.minCoverage ?? 0;
    if (!(this.minCoverage >= 0 && this.minCoverage <= 1)) throw new Error('openai.minCoverage must be 0..1');
    const baseUrls = parseBaseUrls(options.baseUrl);
    if (!Array.isArray(baseUrls)) throw new Error(`openai.baseUrl ${baseUrls.error}`);
    this.concurrencyPinned = options.concurrency !== undefined;
    this.upstream = new ChatUpstream({
      baseUrls,
      apiKey: options.apiKey,
      concurrency: options.concurrency ?? SERVING_ENGINE_CONCURRENCY,
      maxRetries: options.maxRetries ?? 3,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      cooldownMs: options.failoverCooldownMs ?? 30_000,
      now: options.now ?? Date.now,
    });
    this.labelIds = new LabelTokenIds({
      root: () => this.upstream.root,
      apiKey: options.apiKey,
      upstreamModel: options.upstreamModel,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
  }

  /** The route prompts are scored on (the probe's choice). */
  get scoringRoute(): ScoringRoute {
    return this.route;
  }

  /** Each upstream server in order, and whether it is asked now (failover). */
  upstreamHealth(): { baseUrl: string; healthy: boolean }[] {
    return this.upstream.health();
  }

  /** Upstream requests allowed in flight at once, across all requests. */
  get concurrency(): number {
    return this.upstream.concurrency;
  }

  /**
   * What a reply says of the upstream: Ollama marks its OpenAI-compatible replies `system_fingerprint: "fp_ollama"`
   * (openai/openai.go), and a default Ollama runs one request at a time; more in flight only queue there.
   */
  private notice(completion: OpenAI.Chat.ChatCompletion): void {
    if (!this.concurrencyPinned && completion.system_fingerprint === 'fp_ollama') this.upstream.concurrency = 1;
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

  /** Every prompt carries the whole state; the fallback sends each prompt `samples` times. */
  planTokens(job: Omit<ScoreJob, 'signal'>): TokenPlan {
    const plan: TokenPlan = { total: 0, longest: 0, statePasses: 0 };
    const sends = this.method === 'samples' ? this.samples : 1;
    for (const question of job.rendered.questions) {
      for (const group of plannedGroups(question, this.groupSize)) {
        const tokens = this.countTokens(job.model, job.rendered.prefix + group.suffix);
        plan.total += tokens * sends;
        plan.longest = Math.max(plan.longest, tokens);
        plan.statePasses! += sends;
      }
    }
    if (sends > 1)
      plan.passesWhy =
        `${sends} samples of each prompt: the upstream returns no logprobs, so answers are sampled ` +
        '(JUDGE_OPENAI_SAMPLES sets how many)';
    return plan;
  }

  /** The method in use, probing the upstream once when it is not known yet ("unknown" if the probe failed). */
  async scoringOf(): Promise<ScoringMethod> {
    if (this.method) return OPENAI_SCORING[this.method];
    return this.probe().then(
      (method) => OPENAI_SCORING[method],
      () => ({ method: 'unknown', calibrated: false }),
    );
  }

  /**
   * Asks the upstream one tiny question and keeps the best method it shows, in order: exact label ids (the
   * server's tokenizer gives the labels' ids and a label outside the top-k comes back when named), top-k logprobs,
   * else the sampling fallback. On demand too (an operator whose provider changed). A pinned `scoring` setting is
   * not probed. One probe at a time.
   */
  probe(signal?: AbortSignal): Promise<OpenAIScoring> {
    if (this.scoring !== 'auto') return Promise.resolve(this.scoring);
    this.probing ??= (async () => {
      try {
        this.method = undefined;
        this.route = 'chat';
        const group = PROBE.questions[0];
        const prompt = PROBE.prefix + group.suffix;
        const native = await this.probeNative(prompt, group.labels, signal ?? neverAborted());
        if (native) return (this.method = native);
        const asked = await this.askLogprobs(prompt, group.labels, signal ?? neverAborted());
        if (!asked.scores) return (this.method = 'samples');
        const exact = await this.namesLabels(prompt, group.labels, signal ?? neverAborted()).catch(() => false);
        return (this.method = exact ? 'exact_label_ids' : 'top_logprobs');
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /**
   * The engine-native route, when the upstream is SGLang whose /generate returns named label ids (a label outside
   * the top-k included: exact), or llama.cpp whose /completion returns its top `n_probs` (top-k, never exact).
   */
  private async probeNative(prompt: string, labels: string[], signal: AbortSignal): Promise<OpenAIScoring | undefined> {
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    const found = await identifyEngine(this.upstream.root, this.upstream.authorization(), timeoutMs, signal);
    const refused = (error: unknown) => {
      if (error instanceof BackendError && error.status !== 402 && !signal.aborted) return undefined;
      throw error;
    };
    if (found.engine === 'sglang') {
      const named = [...labels, OUTSIDE_LABEL];
      const ids = await this.labelIds.of(named, signal).catch(() => undefined);
      if (!ids) return undefined;
      const reply = await this.upstream
        .post<SglangGenerateReply>('/generate', sglangRequest(prompt, 1, ids), signal)
        .catch(refused);
      if (!reply || !sglangScores(reply, named, ids)?.exact) return undefined;
      this.route = 'sglang';
      return 'exact_label_ids';
    }
    if (found.engine === 'llamacpp') {
      if (!this.concurrencyPinned && found.slots) this.upstream.concurrency = found.slots;
      const request = llamacppRequest(prompt, labels.length);
      const reply = await this.upstream.post<LlamacppCompletionReply>('/completion', request, signal).catch(refused);
      if (!reply || !llamacppScores(reply, labels)) return undefined;
      this.route = 'llamacpp';
      return 'top_logprobs';
    }
    return undefined;
  }

  /** Whether the upstream returns the logprobs of named token ids, a label outside its top-1 included. */
  private async namesLabels(prompt: string, labels: string[], signal: AbortSignal): Promise<boolean> {
    const named = [...labels, OUTSIDE_LABEL];
    const ids = await this.labelIds.of(named, signal);
    if (!ids) return false;
    const body: LogprobsRequest = { ...this.logprobsBody(prompt, 1), logprob_token_ids: ids };
    const completion = await this.upstream.complete(body, signal).catch((error: unknown) => {
      // Refused (an engine that knows no such field answers 400): not exact. A spending cap stays an error.
      if (error instanceof BackendError && error.status !== 402 && !signal.aborted) return undefined;
      throw error;
    });
    const top = completion?.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs ?? [];
    return named.every((label) => top.some((t) => t.token === label));
  }

  private logprobsBody(prompt: string, topLogprobs = this.topLogprobs): LogprobsRequest {
    return {
      model: this.options.upstreamModel,
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: topLogprobs,
    };
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
    const upstream = noUpstreamTokens();
    const used = new Set<OpenAIScoring>();
    try {
      const scores = await Promise.all(
        job.rendered.questions.map(async (question) => {
          try {
            const ask = async (group: OptionGroup) => {
              const prompt = job.rendered.prefix + group.suffix;
              const asked = await this.askGroup(prompt, group, siblings.signal, job.requestId);
              const { scores, promptTokens, method } = asked;
              inputTokens += promptTokens;
              addUpstreamTokens(upstream, asked.upstream);
              used.add(method);
              return scores;
            };
            const labels = await this.tokenLabels(question, siblings.signal);
            const scored = labels
              ? normalised(await ask(renderWithLabels(question, labels)))
              : await scoreInGroups(question, this.groupSize, ask);
            this.holdToFloor(question.name, scored);
            return scored;
          } catch (error) {
            siblings.abort(error);
            throw error;
          }
        }),
      );
      // A job that switched to the fallback midway reports the fallback: some of its numbers are not calibrated.
      // The weakest method any prompt of the job was read with.
      const method = (['samples', 'top_logprobs', 'exact_label_ids'] as const).find((m) => used.has(m)) ?? this.method;
      return { scores, inputTokens, upstream, ...(method ? { scoring: OPENAI_SCORING[method] } : {}) };
    } finally {
      job.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * For more than 26 options read by their label ids: one label per option, each a distinct single token of the
   * server's tokenizer, so the whole list is asked in one prompt; undefined (grouping stays) otherwise.
   */
  private async tokenLabels(question: RenderedQuestion, signal: AbortSignal): Promise<string[] | undefined> {
    if (this.method !== 'exact_label_ids' || question.options.length <= MAX_SINGLE_TOKEN_OPTIONS) return undefined;
    return this.labelIds.singleTokenLabels(question.options.length, signal);
  }

  /** Refuses (502) an answer whose coverage is below the configured floor. */
  private holdToFloor(name: string, scores: QuestionScores): void {
    const coverage = scores.coveredMass;
    if (coverage === undefined || coverage >= this.minCoverage) return;
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const sentence =
      `The answer to question ${JSON.stringify(name)} covers ${pct(coverage)} of the model's probability with its ` +
      `labels, below this server's floor of ${pct(this.minCoverage)} (backend.minCoverage).`;
    throw new BackendError(`${sentence} Upstream model "${this.options.upstreamModel}".`, 502, 'coverage_below_floor', {
      publicMessage: sentence,
    });
  }

  /** One prompt, by the method in use; the first reply without logprobs switches to the fallback (when auto). */
  private async askGroup(
    prompt: string,
    group: OptionGroup,
    signal: AbortSignal,
    requestId?: string,
  ): Promise<Asked & { method: OpenAIScoring }> {
    if (this.method === 'samples')
      return { ...(await this.askSamples(prompt, group.labels, signal, requestId)), method: 'samples' };
    const tried = await this.askLogprobs(prompt, group.labels, signal, requestId);
    if (tried.scores) {
      this.method ??= 'top_logprobs';
      return { ...tried, scores: tried.scores, method: tried.exact ? 'exact_label_ids' : 'top_logprobs' };
    }
    if (this.learntLogprobs()) throw this.noLogprobs();
    this.method = 'samples';
    // The try without logprobs was processed upstream too: it is metered with the samples.
    const sampled = await this.askSamples(prompt, group.labels, signal, requestId);
    return {
      scores: sampled.scores,
      promptTokens: sampled.promptTokens + tried.promptTokens,
      upstream: addUpstreamTokens(sampled.upstream, tried.upstream),
      method: 'samples',
    };
  }

  /** Whether the method in use reads logprobs (pinned or probed): a reply without them is then an error. */
  private learntLogprobs(): boolean {
    return this.method === 'top_logprobs' || this.method === 'exact_label_ids';
  }

  private noLogprobs(): BackendError {
    const why =
      this.scoring === 'top_logprobs'
        ? 'and backend.scoring is "top_logprobs". Set it to "auto" or "samples" to use the sampling fallback, or use'
        : 'although it did when probed; probe again (GET /v1/models after a restart) or use';
    return new BackendError(
      `The OpenAI-compatible server at ${this.options.baseUrl} returned no logprobs for model ` +
        `"${this.options.upstreamModel}", ${why} a server and model that support logprobs with top_logprobs.`,
      502,
      'logprobs_unsupported',
    );
  }

  /**
   * One completion with top_logprobs (and the labels' token ids when scoring by them, `exact`); no `scores` when
   * the reply has none or the upstream refuses them (400).
   */
  private async askLogprobs(
    prompt: string,
    labels: string[],
    signal: AbortSignal,
    requestId?: string,
  ): Promise<Omit<Asked, 'scores'> & { scores?: QuestionScores; exact?: boolean }> {
    if (this.route !== 'chat') return this.askNative(prompt, labels, signal, requestId);
    const ids = this.method === 'exact_label_ids' ? await this.labelIds.of(labels, signal) : undefined;
    const body = ids ? { ...this.logprobsBody(prompt), logprob_token_ids: ids } : this.logprobsBody(prompt);
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      completion = await this.upstream.complete(body, signal, requestId);
    } catch (error) {
      if (!this.learntLogprobs() && refusesLogprobs(error)) return { promptTokens: 0, upstream: noUpstreamTokens() };
      throw error;
    }
    this.notice(completion);
    const spent = {
      promptTokens: completion.usage?.prompt_tokens ?? Math.ceil(prompt.length / 4),
      upstream: upstreamTokensOf(completion),
    };
    const listed = completion.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs as TopLogprob[] | undefined;
    if (!Array.isArray(listed) || listed.length === 0) return spent;
    // Named ids: exactly the label tokens count (the sampled token the server adds in front is not one of them).
    const top = ids ? listed.filter((t) => labels.includes(t.token)) : listed;
    const folded = foldTopLogprobs(top, labels);
    if (folded.coveredMass === 0) throw this.notCovered(top.length, labels);
    const exact = ids !== undefined && folded.missing.length === 0;
    return { ...spent, exact, scores: { logprobs: folded.logprobs, coveredMass: folded.coveredMass } };
  }

  /** One prompt on the engine-native route the probe chose (SGLang's /generate, llama.cpp's /completion). */
  private async askNative(
    prompt: string,
    labels: string[],
    signal: AbortSignal,
    requestId?: string,
  ): Promise<Asked & { exact: boolean }> {
    let read: FoldedReply | undefined;
    let upstream: UpstreamTokens;
    if (this.route === 'sglang') {
      const ids = await this.labelIds.of(labels, signal);
      const request = sglangRequest(prompt, this.topLogprobs, ids);
      const reply = await this.upstream.post<SglangGenerateReply>('/generate', request, signal, requestId);
      read = sglangScores(reply, labels, ids);
      upstream = sglangTokens(reply);
    } else {
      const request = llamacppRequest(prompt, labels.length);
      const reply = await this.upstream.post<LlamacppCompletionReply>('/completion', request, signal, requestId);
      read = llamacppScores(reply, labels);
      upstream = llamacppTokens(reply);
    }
    if (!read) throw this.noLogprobs();
    if (read.scores.coveredMass === 0) throw this.notCovered(undefined, labels);
    const promptTokens = upstream.promptTokens || Math.ceil(prompt.length / 4);
    return { scores: read.scores, exact: read.exact, promptTokens, upstream };
  }

  private notCovered(listed: number | undefined, labels: string[]): BackendError {
    const which = listed === undefined ? 'first tokens it listed' : `top ${listed} first tokens`;
    return new BackendError(
      `Model "${this.options.upstreamModel}" put none of its ${which} on the answer labels ` +
        `(${labels.join(', ')}); it does not follow the answer format.`,
      502,
      'labels_not_covered',
    );
  }

  /** The fallback: `samples` completions at temperature 1, one request each, counted per label (sampling.ts). */
  private async askSamples(prompt: string, labels: string[], signal: AbortSignal, requestId?: string): Promise<Asked> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: this.options.upstreamModel,
      messages: [{ role: 'user', content: prompt }],
      max_completion_tokens: this.sampleMaxTokens,
      temperature: 1,
    };
    const completions = await Promise.all(
      Array.from({ length: this.samples }, () => this.upstream.complete(body, signal, requestId)),
    );
    for (const completion of completions) this.notice(completion);
    const replies = completions.map((c) => c.choices?.[0]?.message?.content ?? '');
    const { labelled, ...scores } = scoresFromSamples(replies, labels);
    if (labelled === 0) {
      throw new BackendError(
        `Model "${this.options.upstreamModel}" named none of the answer labels (${labels.join(', ')}) in ` +
          `${replies.length} sampled replies; it does not follow the answer format.`,
        502,
        'labels_not_covered',
      );
    }
    const promptTokens = completions.reduce(
      (sum, c) => sum + (c.usage?.prompt_tokens ?? Math.ceil(prompt.length / 4)),
      0,
    );
    const upstream = completions.map(upstreamTokensOf).reduce(addUpstreamTokens, noUpstreamTokens());
    return { scores, promptTokens, upstream };
  }
}

export async function createOpenAIBackend(options: OpenAIBackendOptions): Promise<OpenAIBackend> {
  return new OpenAIBackend(options);
}
