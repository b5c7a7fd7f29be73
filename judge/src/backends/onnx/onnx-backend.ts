// The local ONNX backend: scores every question's options from one decoder-only LM run in-process,
// so that extra questions cost only their own tokens.
//
// Per call (see model-dir.ts for the layouts):
//   shared-prefix: state KV once (or from the cache) → all suffixes in ONE batch reading that single KV;
//   plain-past:    state KV once (or from the cache) → each suffix on its own against that KV;
//   no-past:       one full pass per question.
// A one-question call with an uncached state runs as a single pass (state + suffix), whose KV still fills the cache.
// Labels that are several tokens long are finished from each row's own past.
import { AsyncLocalStorage } from 'node:async_hooks';
import * as ort from 'onnxruntime-node';
import type { Backend, ModelDescriptor, QuestionScores, ScoreJob, ScoreResult, TokenPlan } from '../../engine/backend';
import { BackendError } from '../../engine/backend';
import { badRequest } from '../../protocol/errors';
import { StateKvCache, stateKey, type CachedState } from './kv-cache';
import { loadModelDir, type LoadedModel } from './model-dir';
import { TokenMemo } from './token-memo';
import { emptyKv, gatherKvRows, int64Tensor, kvBytes, sliceKv, type KvTensors } from './tensors';

export interface OnnxModelOptions {
  /** Pinned, versioned id, e.g. "judge-onnx-2026-11-01". */
  id: string;
  /** The model directory (model.onnx, tokenizer.json, tokenizer_config.json, config.json). */
  dir: string;
  description?: string;
  releaseDate?: string;
}

export interface OnnxBackendOptions {
  models: OnnxModelOptions[];
  /** Threads one session.run may use (ORT's intra-op pool). Default 0: ORT's choice (all cores). */
  intraOpNumThreads?: number;
  /** Byte budget of the state-KV cache; 0 disables it. Default 256 MiB. */
  kvCacheBytes?: number;
}

/** Counters of what was fed to session.run, for usage and tests. */
export interface OnnxRunStats {
  runs: number;
  /** Real (non-padding) input tokens. */
  tokens: number;
  /** Padding slots fed alongside them in ragged batches. */
  paddingTokens: number;
}

interface PreparedQuestion {
  suffixIds: readonly number[];
  labelIds: (readonly number[])[];
}

interface RunRequest {
  /** One token list per row; rows are left-padded to the longest, so every row ends in the last column. */
  rows: (readonly number[])[];
  /** Per row: the position of its first token. */
  startPositions: number[];
  /** Per row: the attention mask over its own past (1 = real, 0 = padding). */
  pastMasks: number[][];
  past?: KvTensors;
  prefix?: KvTensors;
  wantPresent: boolean;
  /** False for the state pass, which needs only the KV (with keepLast 1, its LM head runs on one position). */
  wantLogits?: boolean;
  /** Logits are needed for the last this many columns only (graphs with a logits_to_keep input). Default: all. */
  keepLast?: number;
}

interface RunOutput {
  /** Present unless the run asked for none. */
  logits: ort.Tensor;
  present?: KvTensors;
  /** Columns fed (the padded width) and how many of the last ones have logits. */
  width: number;
  kept: number;
}

interface ColumnPick {
  row: number;
  /** A column of the fed (padded) width. */
  column: number;
  tokenIds: number[];
}

/** Full-vocabulary log-probabilities of each pick's tokens, all normalised in one helper run. */
function logprobsAt(m: LoadedModel, out: RunOutput, picks: ColumnPick[]): Promise<number[][]> {
  const firstKept = out.width - out.kept;
  return m.logSoftmax.logprobs(
    out.logits,
    picks.map((p) => ({ row: p.row, position: p.column - firstKept, tokenIds: p.tokenIds })),
  );
}

/** Per question row (in order), the first token of each label, read at the row's last column. */
function firstTokenLogprobs(m: LoadedModel, out: RunOutput, questions: PreparedQuestion[]): Promise<number[][]> {
  return logprobsAt(
    m,
    out,
    questions.map((q, row) => ({ row, column: out.width - 1, tokenIds: q.labelIds.map((l) => l[0]) })),
  );
}

/** Tokens fed during one score() call, kept apart from concurrent calls. */
const callTally = new AsyncLocalStorage<{ tokens: number }>();

interface ModelEntry {
  descriptor: ModelDescriptor;
  model: LoadedModel;
}

/** Characters of text whose tokenisation each model keeps (states, suffixes, labels). */
const TOKEN_MEMO_CHARS = 4 * 1024 * 1024;

export class OnnxBackend implements Backend {
  readonly kind = 'onnx';
  readonly stats: OnnxRunStats = { runs: 0, tokens: 0, paddingTokens: 0 };
  readonly cache: StateKvCache;
  private readonly tokenMemos = new Map<LoadedModel, TokenMemo>();

  constructor(
    private readonly entries: Map<string, ModelEntry>,
    kvCacheBytes: number,
  ) {
    this.cache = new StateKvCache(kvCacheBytes);
  }

  models(): ModelDescriptor[] {
    return [...this.entries.values()].map((e) => e.descriptor);
  }

  /** The loaded model behind an id (its session, tokenizer and layout). */
  loaded(modelId: string): LoadedModel {
    const entry = this.entries.get(modelId);
    if (!entry) throw new BackendError(`the ONNX backend does not serve model "${modelId}"`, 502, 'unknown_model');
    return entry.model;
  }

  countTokens(model: string, text: string): number {
    return this.encode(this.loaded(model), text, false).length;
  }

  private encode(m: LoadedModel, text: string, withSpecialTokens: boolean): readonly number[] {
    let memo = this.tokenMemos.get(m);
    if (!memo) this.tokenMemos.set(m, (memo = new TokenMemo(TOKEN_MEMO_CHARS)));
    return memo.ids(
      withSpecialTokens ? 'special' : 'plain',
      text,
      (t) => m.tokenizer.encode(t, { add_special_tokens: withSpecialTokens }).ids,
    );
  }

  /** Token ids of each label; when one label's tokens begin another's, every label is closed with ")". */
  private labelIds(m: LoadedModel, labels: string[]): (readonly number[])[] {
    let ids = labels.map((label) => this.encode(m, label, false));
    const isProperPrefix = (a: readonly number[], b: readonly number[]): boolean =>
      a.length < b.length && a.every((t, i) => b[i] === t);
    if (ids.some((a, i) => ids.some((b, j) => i !== j && isProperPrefix(a, b)))) {
      ids = labels.map((label) => this.encode(m, `${label})`, false));
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
    const state = this.encode(m, job.rendered.prefix, true).length;
    const withPast = m.layout !== 'no-past';
    const plan: TokenPlan = { total: withPast ? state : 0, longest: 0, statePasses: withPast ? 1 : 0 };
    for (const q of job.rendered.questions) {
      const suffix = this.encode(m, q.suffix, false).length;
      const continuations = this.labelIds(m, q.labels).map((label) => label.length - 1);
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

  async score(job: ScoreJob): Promise<ScoreResult> {
    const m = this.loaded(job.model);
    const stateIds = this.encode(m, job.rendered.prefix, true);
    const questions: PreparedQuestion[] = job.rendered.questions.map((q) => ({
      suffixIds: this.encode(m, q.suffix, false),
      labelIds: this.labelIds(m, q.labels),
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
    const tally = { tokens: 0 };
    let scores: QuestionScores[];
    try {
      scores = await callTally.run(tally, () =>
        m.layout === 'no-past'
          ? this.scoreWithoutPast(m, stateIds, questions, job.signal)
          : this.scoreWithPast(m, job, stateIds, questions),
      );
    } catch (error) {
      if (error instanceof BackendError || (error as { status?: number }).status === 400) throw error;
      throw new BackendError(`ONNX model ${job.model} failed: ${(error as Error).message}`, 502);
    }
    return { scores, inputTokens: tally.tokens };
  }

  private async scoreWithPast(
    m: LoadedModel,
    job: ScoreJob,
    stateIds: readonly number[],
    questions: PreparedQuestion[],
  ): Promise<QuestionScores[]> {
    const S = stateIds.length;
    const key = stateKey(job.model, job.rendered.prefix);
    let state: CachedState | undefined = this.cache.get(key);

    if (!state && questions.length === 1) {
      // One question, cold state: a single pass over state + suffix. Its KV's state part fills the cache.
      // The KV is fetched only when the cache would keep it or a label of several tokens needs it.
      const q = questions[0];
      const ids = [...stateIds, ...q.suffixIds];
      const keepState = this.cache.accepts(stateKvBytes(m, S));
      const needPresent = keepState || q.labelIds.some((l) => l.length > 1);
      const out = await this.run(
        m,
        { rows: [ids], startPositions: [0], pastMasks: [[]], wantPresent: needPresent, keepLast: 1 },
        job.signal,
      );
      if (keepState) {
        const stateKv = sliceKv(out.present!, S);
        this.cache.set(key, { tokens: S, kv: stateKv, bytes: kvBytes(stateKv) });
      }
      const [first] = await firstTokenLogprobs(m, out, [q]);
      const rest = needPresent
        ? await this.finishLabels(
            m,
            [q],
            out.present!,
            [Array(ids.length).fill(1)],
            [ids.length],
            undefined,
            job.signal,
          )
        : [q.labelIds.map(() => 0)];
      return [combine(first, rest[0])];
    }

    if (!state) {
      const out = await this.run(
        m,
        { rows: [stateIds], startPositions: [0], pastMasks: [[]], wantPresent: true, wantLogits: false, keepLast: 1 },
        job.signal,
      );
      state = { tokens: S, kv: out.present!, bytes: kvBytes(out.present!) };
      this.cache.set(key, state);
    }

    if (m.layout === 'shared-prefix') {
      const needPresent = questions.some((q) => q.labelIds.some((l) => l.length > 1));
      const rows = questions.map((q) => q.suffixIds);
      const out = await this.run(
        m,
        {
          rows,
          startPositions: rows.map(() => S),
          pastMasks: rows.map(() => []),
          prefix: state.kv,
          wantPresent: needPresent,
          keepLast: 1,
        },
        job.signal,
      );
      const first = await firstTokenLogprobs(m, out, questions);
      const ownMasks = rows.map((r) => Array.from({ length: out.width }, (_, i) => (i < out.width - r.length ? 0 : 1)));
      const rest = needPresent
        ? await this.finishLabels(
            m,
            questions,
            out.present!,
            ownMasks,
            rows.map((r) => S + r.length),
            state.kv,
            job.signal,
          )
        : questions.map((q) => q.labelIds.map(() => 0));
      return questions.map((q, r) => combine(first[r], rest[r]));
    }

    // plain-past: each question against the one state KV.
    const scores: QuestionScores[] = [];
    for (const q of questions) {
      const needPresent = q.labelIds.some((l) => l.length > 1);
      const out = await this.run(
        m,
        {
          rows: [q.suffixIds],
          startPositions: [S],
          pastMasks: [Array(S).fill(1)],
          past: state.kv,
          wantPresent: needPresent,
          keepLast: 1,
        },
        job.signal,
      );
      const [first] = await firstTokenLogprobs(m, out, [q]);
      const total = S + q.suffixIds.length;
      const rest = needPresent
        ? await this.finishLabels(m, [q], out.present!, [Array(total).fill(1)], [total], undefined, job.signal)
        : [q.labelIds.map(() => 0)];
      scores.push(combine(first, rest[0]));
    }
    return scores;
  }

  /**
   * Log-probability of every multi-token label's tokens after its first, in one batch: each (question, label)
   * row continues from its question row's own past (and the shared prefix, where the layout has one).
   * Returns per question, per label, the sum over tokens 2..n (0 for single-token labels).
   */
  private async finishLabels(
    m: LoadedModel,
    questions: PreparedQuestion[],
    questionPast: KvTensors,
    questionMasks: number[][],
    nextPositions: number[],
    prefix: KvTensors | undefined,
    signal?: AbortSignal,
  ): Promise<number[][]> {
    const result = questions.map((q) => q.labelIds.map(() => 0));
    const jobs: { question: number; label: number }[] = [];
    questions.forEach((q, qi) => q.labelIds.forEach((l, li) => l.length > 1 && jobs.push({ question: qi, label: li })));
    if (jobs.length === 0) return result;
    const rows = jobs.map((j) => questions[j.question].labelIds[j.label].slice(0, -1));
    const out = await this.run(
      m,
      {
        rows,
        startPositions: jobs.map((j) => nextPositions[j.question]),
        pastMasks: jobs.map((j) => questionMasks[j.question]),
        past: gatherKvRows(
          questionPast,
          jobs.map((j) => j.question),
        ),
        prefix,
        wantPresent: false,
      },
      signal,
    );
    // Row r's label token t (t ≥ 1) is read after its token t-1, at column padding + t - 1.
    const picks: (ColumnPick & { job: number })[] = [];
    jobs.forEach((j, r) => {
      const label = questions[j.question].labelIds[j.label];
      const padding = out.width - (label.length - 1);
      for (let t = 1; t < label.length; t++)
        picks.push({ job: r, row: r, column: padding + t - 1, tokenIds: [label[t]] });
    });
    const logprobs = await logprobsAt(m, out, picks);
    picks.forEach((p, i) => {
      const j = jobs[p.job];
      result[j.question][j.label] += logprobs[i][0];
    });
    return result;
  }

  private async scoreWithoutPast(
    m: LoadedModel,
    stateIds: readonly number[],
    questions: PreparedQuestion[],
    signal?: AbortSignal,
  ): Promise<QuestionScores[]> {
    const scores: QuestionScores[] = [];
    for (const q of questions) {
      const ids = [...stateIds, ...q.suffixIds];
      const out = await this.run(
        m,
        { rows: [ids], startPositions: [0], pastMasks: [[]], wantPresent: false, keepLast: 1 },
        signal,
      );
      const [first] = await firstTokenLogprobs(m, out, [q]);
      const rest = q.labelIds.map(() => 0);
      for (const [li, label] of q.labelIds.entries()) {
        if (label.length === 1) continue;
        const full = [...ids, ...label.slice(0, -1)];
        const cont = await this.run(
          m,
          { rows: [full], startPositions: [0], pastMasks: [[]], wantPresent: false },
          signal,
        );
        const picks = label.slice(1).map((token, i) => ({ row: 0, column: ids.length + i, tokenIds: [token] }));
        for (const [lp] of await logprobsAt(m, cont, picks)) rest[li] += lp;
      }
      scores.push(combine(first, rest));
    }
    return scores;
  }

  /** One session.run: builds the feeds, fetches only the outputs needed, counts the tokens. */
  private async run(m: LoadedModel, req: RunRequest, signal?: AbortSignal): Promise<RunOutput> {
    if (signal?.aborted) throw new BackendError('the request was cancelled', 504, 'cancelled');
    const batch = req.rows.length;
    const width = Math.max(...req.rows.map((r) => r.length));
    const pastLength = req.pastMasks[0].length;
    const ids: number[] = [];
    const mask: number[] = [];
    const positions: number[] = [];
    let real = 0;
    req.rows.forEach((row, r) => {
      real += row.length;
      mask.push(...req.pastMasks[r]);
      const padding = width - row.length;
      for (let c = 0; c < width; c++) {
        const i = c - padding; // index into the row's own tokens; < 0 for padding
        ids.push(i >= 0 ? row[i] : m.padId);
        mask.push(i >= 0 ? 1 : 0);
        positions.push(Math.min(req.startPositions[r] + Math.max(i, 0), m.maxPositions - 1));
      }
    });
    const feeds: Record<string, ort.Tensor> = { input_ids: int64Tensor(ids, [batch, width]) };
    if (m.inputs.has('attention_mask')) feeds.attention_mask = int64Tensor(mask, [batch, pastLength + width]);
    if (m.inputs.has('position_ids')) feeds.position_ids = int64Tensor(positions, [batch, width]);
    if (m.inputs.has('use_cache_branch')) feeds.use_cache_branch = new ort.Tensor('bool', [true], [1]);
    const kept = m.inputs.has('logits_to_keep') && req.keepLast !== undefined ? Math.min(req.keepLast, width) : width;
    if (m.inputs.has('logits_to_keep'))
      feeds.logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(BigInt(kept)), []);
    const fetches = req.wantLogits === false ? [] : ['logits'];
    if (m.layout !== 'no-past') {
      const past = req.past ?? emptyKv(m.layers, batch, m.heads, m.headDim, m.kvType);
      const prefix = req.prefix ?? emptyKv(m.layers, 1, m.heads, m.headDim, m.kvType);
      for (let l = 0; l < m.layers; l++) {
        feeds[`past_key_values.${l}.key`] = past[l].key;
        feeds[`past_key_values.${l}.value`] = past[l].value;
        if (m.layout === 'shared-prefix') {
          feeds[`prefix_key_values.${l}.key`] = prefix[l].key;
          feeds[`prefix_key_values.${l}.value`] = prefix[l].value;
        }
        if (req.wantPresent) fetches.push(`present.${l}.key`, `present.${l}.value`);
      }
    }
    this.stats.runs++;
    this.stats.tokens += real;
    const tally = callTally.getStore();
    if (tally) tally.tokens += real;
    this.stats.paddingTokens += batch * width - real;
    const out = await m.session.run(feeds, fetches);
    const present = req.wantPresent
      ? Array.from({ length: m.layers }, (_, l) => ({ key: out[`present.${l}.key`], value: out[`present.${l}.value`] }))
      : undefined;
    return { logits: out.logits, present, width, kept };
  }

  async close(): Promise<void> {
    this.cache.clear();
    for (const entry of this.entries.values()) {
      await entry.model.session.release();
      await entry.model.logSoftmax.release();
    }
  }
}

/** Bytes of a state KV of `tokens` positions (keys and values of every layer, batch 1). */
function stateKvBytes(m: LoadedModel, tokens: number): number {
  return 2 * m.layers * m.heads * tokens * m.headDim * (m.kvType === 'float16' ? 2 : 4);
}

/** Adds each label's later tokens to its first; the covered mass is the labels' total probability. */
function combine(first: number[], rest: number[]): QuestionScores {
  const logprobs = first.map((lp, i) => lp + rest[i]);
  const coveredMass = Math.min(
    1,
    logprobs.reduce((sum, lp) => sum + Math.exp(lp), 0),
  );
  return { logprobs, coveredMass };
}

/** Loads every model (one session each, reused for every call) and returns the backend. */
export async function createOnnxBackend(options: OnnxBackendOptions): Promise<OnnxBackend> {
  const entries = new Map<string, ModelEntry>();
  for (const [i, spec] of options.models.entries()) {
    let model: LoadedModel;
    try {
      model = await loadModelDir(spec.dir, options.intraOpNumThreads ?? 0);
    } catch (error) {
      throw new Error(`backend.models[${i}].dir: ${(error as Error).message}`);
    }
    entries.set(spec.id, {
      model,
      descriptor: {
        id: spec.id,
        description: spec.description ?? `Local ONNX model (${model.layout} layout) from ${spec.dir}`,
        releaseDate: spec.releaseDate ?? '1970-01-01',
      },
    });
  }
  return new OnnxBackend(entries, options.kvCacheBytes ?? 256 * 1024 * 1024);
}
