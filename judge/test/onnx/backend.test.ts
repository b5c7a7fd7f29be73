// The local ONNX backend on generated models: exactness against from-scratch recomputation, one batch for all
// questions over a shared prefix, the state-KV cache, multi-token labels, and the tokens fed to session.run.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/protocol/errors';
import { JudgeEngine } from '../../src/engine/engine';
import { renderRequest } from '../../src/engine/render';
import type { ScoreJob } from '../../src/engine/backend';
import type { SystemOneRequest } from '../../src/protocol/types';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { LocalInference } from '../../src/backends/onnx/inference';
import { everyPositionFeeds, fullLogits, generate, maxAbsDiff, referenceLabelLogprobs, tempDir } from './fixtures';

const STATE = {
  ticket:
    'Subject: Export failing\n\nThe data export has failed 8 times this week. Sixty users are affected and we need a fix by Friday.',
  plan: 'pro',
  seats: 60,
};
const QUESTIONS: SystemOneRequest['questions'] = {
  failing: { type: 'noul', instructions: 'Is a product feature failing?' },
  topic: {
    type: 'choice',
    instructions: 'What is the ticket about?',
    criteria: { billing: null, export: 'data export', login: null, other: null },
  },
  urgency: {
    type: 'score',
    instructions: 'How urgent is it?',
    criteria: ['none', 'low', 'medium', 'high', 'critical'],
  },
  deadline: {
    type: 'noul',
    instructions: 'Does the customer give a deadline for a resolution, stated as a day or a date in the message?',
  },
  plan: { type: 'choice', criteria: { free: null, pro: null } },
};

function job(
  model: string,
  questions: SystemOneRequest['questions'] = QUESTIONS,
  state: SystemOneRequest['state'] = STATE,
): ScoreJob {
  return { model, state, rendered: renderRequest({ state, questions }) };
}

function only(name: string): SystemOneRequest['questions'] {
  return { [name]: QUESTIONS[name] };
}

const DIMS = { layers: 2, heads: 4, headDim: 8 };
const MODEL = 'judge-onnx-test';

describe('ONNX backend on generated models', () => {
  const tmp = tempDir('onnx-backend-');
  const backends: Record<'shared' | 'plain' | 'none', OnnxBackend> = {} as never;
  let dirs: Record<'shared' | 'plain' | 'none', string>;
  let reference: ort.InferenceSession;

  beforeAll(async () => {
    dirs = {
      shared: generate(tmp.path, 'shared', { seed: 7, layout: 'shared-prefix' }).dir,
      plain: generate(tmp.path, 'plain', { seed: 7, layout: 'plain-past' }).dir,
      none: generate(tmp.path, 'none', { seed: 7, layout: 'no-past' }).dir,
    };
    for (const kind of ['shared', 'plain', 'none'] as const) {
      backends[kind] = await createOnnxBackend({ models: [{ id: MODEL, dir: dirs[kind] }], intraOpNumThreads: 1 });
    }
    reference = await ort.InferenceSession.create(`${dirs.none}/model.onnx`, { intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    await reference?.release();
    tmp.remove();
  });

  it('detects each layout from the graph inputs', () => {
    expect(backends.shared.loaded(MODEL).layout).toBe('shared-prefix');
    expect(backends.plain.loaded(MODEL).layout).toBe('plain-past');
    expect(backends.none.loaded(MODEL).layout).toBe('no-past');
  });

  it('full sequence = prefix then suffix, in the raw graphs (≤ 1e-5)', async () => {
    const m = backends.shared.loaded(MODEL);
    const ids = m.tokenizer.encode('The export failed again today. Is it broken? Answer: (', {
      add_special_tokens: false,
    }).ids;
    const split = 12;
    const full = await fullLogits(reference, ids, DIMS.layers, DIMS.heads, DIMS.headDim);
    const V = full.dims[2];
    const tail = (full.data as Float32Array).subarray(split * V);

    const i64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);
    const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, DIMS.heads, 0, DIMS.headDim]);
    const head = ids.slice(0, split);
    const rest = ids.slice(split);
    for (const kind of ['plain', 'shared'] as const) {
      const session = await ort.InferenceSession.create(`${dirs[kind]}/model.onnx`, { intraOpNumThreads: 1 });
      const first: Record<string, ort.Tensor> = {
        input_ids: i64(head, [1, split]),
        attention_mask: i64(
          head.map(() => 1),
          [1, split],
        ),
        position_ids: i64(
          head.map((_, i) => i),
          [1, split],
        ),
      };
      for (let l = 0; l < DIMS.layers; l++) {
        for (const kv of ['key', 'value']) {
          first[`past_key_values.${l}.${kv}`] = empty();
          if (kind === 'shared') first[`prefix_key_values.${l}.${kv}`] = empty();
        }
      }
      Object.assign(first, everyPositionFeeds(session, split));
      const state = await session.run(first);
      const second: Record<string, ort.Tensor> = {
        input_ids: i64(rest, [1, rest.length]),
        position_ids: i64(
          rest.map((_, i) => split + i),
          [1, rest.length],
        ),
      };
      for (let l = 0; l < DIMS.layers; l++) {
        for (const kv of ['key', 'value']) {
          if (kind === 'shared') {
            second[`prefix_key_values.${l}.${kv}`] = state[`present.${l}.${kv}`];
            second[`past_key_values.${l}.${kv}`] = empty();
          } else {
            second[`past_key_values.${l}.${kv}`] = state[`present.${l}.${kv}`];
          }
        }
      }
      Object.assign(second, everyPositionFeeds(session, rest.length));
      second.attention_mask = i64(Array(kind === 'shared' ? rest.length : ids.length).fill(1), [
        1,
        kind === 'shared' ? rest.length : ids.length,
      ]);
      const out = await session.run(second, ['logits']);
      await session.release();
      expect(maxAbsDiff(out.logits.data as Float32Array, tail)).toBeLessThanOrEqual(1e-5);
    }
  });

  it('scores a ragged batch over one shared prefix like separate runs and like a full recompute (≤ 1e-5)', async () => {
    const backend = backends.shared;
    await backend.clearCache();
    const runsBefore = backend.stats.runs;
    const together = await backend.score(job(MODEL));
    // One state pass, then ONE batch for all five questions.
    expect(backend.stats.runs - runsBefore).toBe(2);
    expect(backend.stats.paddingTokens).toBeGreaterThan(0);

    const m = backend.loaded(MODEL);
    const rendered = job(MODEL).rendered;
    const stateIds = m.tokenizer.encode(rendered.prefix).ids;
    for (const [i, q] of rendered.questions.entries()) {
      await backend.clearCache();
      const alone = await backend.score(job(MODEL, only(q.name)));
      expect(maxAbsDiff(alone.scores[0].logprobs, together.scores[i].logprobs)).toBeLessThanOrEqual(1e-5);
      const labels = q.labels.map((l) => m.tokenizer.encode(l, { add_special_tokens: false }).ids);
      expect(labels.every((l) => l.length === 1)).toBe(true);
      const suffixIds = m.tokenizer.encode(q.suffix, { add_special_tokens: false }).ids;
      const expected = await referenceLabelLogprobs(reference, [...stateIds, ...suffixIds], labels, DIMS);
      expect(maxAbsDiff(together.scores[i].logprobs, expected)).toBeLessThanOrEqual(1e-5);
      expect(together.scores[i].coveredMass).toBeCloseTo(
        expected.reduce((s, lp) => s + Math.exp(lp), 0),
        6,
      );
    }
  });

  it('answers say exact_label_ids, calibrated, and the label mass read from the full softmax (GET /v1/models too)', async () => {
    const backend = backends.shared;
    const engine = new JudgeEngine({ backend });
    const scored = await backend.score(job(MODEL));
    expect(scored.scoring).toEqual({ method: 'exact_label_ids', calibrated: true });
    const { response } = await engine.judge({ model: MODEL, state: STATE, questions: QUESTIONS });
    for (const [i, q] of job(MODEL).rendered.questions.entries()) {
      const answer = response.answers[q.name];
      expect(answer).toMatchObject({ method: 'exact_label_ids', calibrated: true });
      // Random weights spread mass over the whole vocabulary: coverage is read, well below 1.
      expect(answer.coverage).toBeCloseTo(scored.scores[i].coveredMass!, 12);
      expect(answer.coverage).toBeGreaterThan(0);
      expect(answer.coverage).toBeLessThan(0.5);
    }
    expect((await engine.listModelsWithScoring()).map((m) => m.scoring)).toEqual([
      { method: 'exact_label_ids', calibrated: true },
      { method: 'exact_label_ids', calibrated: true },
    ]);
  });

  it('gives the same scores with a cached state as with a cold one, and feeds only the suffixes', async () => {
    const backend = backends.shared;
    await backend.clearCache();
    const cold = await backend.score(job(MODEL));
    const runsBefore = backend.stats.runs;
    const warm = await backend.score(job(MODEL));
    expect(backend.stats.runs - runsBefore).toBe(1);
    cold.scores.forEach((s, i) => expect(maxAbsDiff(warm.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-6));
    const suffixTokens = job(MODEL).rendered.questions.reduce(
      (sum, q) => sum + backend.countTokens(MODEL, q.suffix),
      0,
    );
    expect(warm.inputTokens).toBe(suffixTokens);
    expect(cold.inputTokens).toBe(backend.countTokens(MODEL, job(MODEL).rendered.prefix) + suffixTokens);

    // A one-question cold call (single pass) fills the cache too: the next call on that state costs its suffix only.
    await backend.clearCache();
    const single = await backend.score(job(MODEL, only('topic')));
    const next = await backend.score(job(MODEL, only('urgency')));
    expect(next.inputTokens).toBe(backend.countTokens(MODEL, job(MODEL, only('urgency')).rendered.questions[0].suffix));
    expect(maxAbsDiff(single.scores[0].logprobs, cold.scores[1].logprobs)).toBeLessThanOrEqual(1e-5);
    expect(maxAbsDiff(next.scores[0].logprobs, cold.scores[2].logprobs)).toBeLessThanOrEqual(1e-5);
  });

  it('with the cache off, scores a one-question call the same and keeps no state', async () => {
    const { dir } = generate(tmp.path, 'shared-nocache', { seed: 7, layout: 'shared-prefix' });
    const uncached = await createOnnxBackend({ models: [{ id: MODEL, dir }], intraOpNumThreads: 1, kvCacheBytes: 0 });
    try {
      for (const name of ['failing', 'topic']) {
        await backends.shared.clearCache();
        const want = await backends.shared.score(job(MODEL, only(name)));
        const got = await uncached.score(job(MODEL, only(name)));
        expect(maxAbsDiff(got.scores[0].logprobs, want.scores[0].logprobs)).toBeLessThanOrEqual(1e-6);
        expect(got.inputTokens).toBe(want.inputTokens);
      }
      expect(await uncached.cachedStates()).toBe(0);
    } finally {
      await uncached.close();
    }
  });

  it('agrees across layouts: plain past runs the questions one by one, no past runs one full pass each', async () => {
    await backends.shared.clearCache();
    await backends.plain.clearCache();
    const shared = await backends.shared.score(job(MODEL));
    for (const kind of ['plain', 'none'] as const) {
      const runsBefore = backends[kind].stats.runs;
      const other = await backends[kind].score(job(MODEL));
      expect(backends[kind].stats.runs - runsBefore).toBe(kind === 'plain' ? 1 + 5 : 5);
      shared.scores.forEach((s, i) =>
        expect(maxAbsDiff(other.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5),
      );
    }
  });

  it('counts exactly the tokens fed to session.run: |state| + Σ|suffix| cold, Σ|suffix| cached', async () => {
    // The workers' own code (LocalInference) run in this thread, so that session.run can be watched.
    for (const kind of ['shared', 'plain'] as const) {
      const backend = backends[kind];
      const m = backend.loaded(MODEL);
      const inference = await LocalInference.load({
        models: [{ id: MODEL, dir: dirs[kind], config: m.config, maxPositions: m.maxPositions, padId: m.padId }],
        intraOpNumThreads: 1,
        kvCacheBytes: 1 << 26,
      });
      const session = inference.model(MODEL).session;
      const originalRun = session.run.bind(session);
      let fed = 0;
      // Count real tokens: the last T columns of attention_mask are the new tokens (0 = padding).
      (session as { run: unknown }).run = (feeds: Record<string, ort.Tensor>, ...rest: unknown[]) => {
        const [batch, width] = feeds.input_ids.dims;
        const mask = feeds.attention_mask.data as BigInt64Array;
        const total = feeds.attention_mask.dims[1];
        for (let b = 0; b < batch; b++) for (let t = total - width; t < total; t++) fed += Number(mask[b * total + t]);
        return (originalRun as (...a: unknown[]) => unknown)(feeds, ...rest);
      };
      try {
        const rendered = job(MODEL).rendered;
        const stateTokens = backend.countTokens(MODEL, rendered.prefix);
        const suffixTokens = rendered.questions.reduce((sum, q) => sum + backend.countTokens(MODEL, q.suffix), 0);
        const cold = await inference.score(backend.prepare(job(MODEL)));
        expect(fed).toBe(stateTokens + suffixTokens);
        expect(cold.stats.tokens).toBe(fed);
        fed = 0;
        const warm = await inference.score(backend.prepare(job(MODEL)));
        expect(fed).toBe(suffixTokens);
        expect(warm.stats.tokens).toBe(fed);
        // Through the worker, a call reports the same count as its usage.
        await backend.clearCache();
        expect((await backend.score(job(MODEL))).inputTokens).toBe(cold.stats.tokens);
      } finally {
        await inference.close();
      }
    }
  });

  it("counts each call's own tokens when calls run concurrently", async () => {
    const backend = backends.shared;
    await backend.clearCache();
    const other = { ...STATE, plan: 'enterprise', seats: 900 };
    const [a, b] = await Promise.all([backend.score(job(MODEL)), backend.score(job(MODEL, QUESTIONS, other))]);
    const cost = (state: SystemOneRequest['state']) => {
      const rendered = job(MODEL, QUESTIONS, state).rendered;
      return (
        backend.countTokens(MODEL, rendered.prefix) +
        rendered.questions.reduce((sum, q) => sum + backend.countTokens(MODEL, q.suffix), 0)
      );
    };
    expect(a.inputTokens).toBe(cost(STATE));
    expect(b.inputTokens).toBe(cost(other));
  });

  it('plans the tokens a cold call really feeds, per layout (no-past feeds the state once per pass)', async () => {
    for (const kind of ['shared', 'plain', 'none'] as const) {
      const backend = backends[kind];
      await backend.clearCache();
      const plan = backend.planTokens(job(MODEL));
      const cold = await backend.score(job(MODEL));
      expect(plan.total).toBe(cold.inputTokens);
      const state = backend.countTokens(MODEL, job(MODEL).rendered.prefix);
      if (kind === 'none') expect(plan.statePasses).toBeGreaterThanOrEqual(Object.keys(QUESTIONS).length);
      else expect(plan.statePasses).toBe(1);
      expect(plan.longest).toBeGreaterThan(state);
      expect(plan.longest).toBeLessThan(plan.total);
    }
  });

  it('refuses a sequence longer than the model holds with a 400 naming the limit', async () => {
    const small = generate(tmp.path, 'short', { seed: 3, layout: 'shared-prefix', maxPositions: 64 });
    const backend = await createOnnxBackend({ models: [{ id: 'short', dir: small.dir }], intraOpNumThreads: 1 });
    try {
      const error = await backend.score(job('short')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).errorType).toBe('max_tokens_exceeded');
      expect((error as ApiError).message).toMatch(/holds at most 64/);
    } finally {
      await backend.close();
    }
  });
});

describe('ONNX backend with multi-token labels', () => {
  const tmp = tempDir('onnx-multitoken-');
  const backends: OnnxBackend[] = [];
  let reference: ort.InferenceSession;
  const manyOptions = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`option ${i}`, null]));
  const questions: SystemOneRequest['questions'] = {
    failing: QUESTIONS.failing,
    many: { type: 'choice', instructions: 'Which option?', criteria: manyOptions },
    urgency: QUESTIONS.urgency,
    plan: QUESTIONS.plan,
  };

  beforeAll(async () => {
    for (const layout of ['shared-prefix', 'plain-past', 'no-past'] as const) {
      const { dir } = generate(tmp.path, layout, { seed: 11, layout, tokenizer: { singleTokenYesNo: false } });
      backends.push(await createOnnxBackend({ models: [{ id: MODEL, dir }], intraOpNumThreads: 1 }));
    }
    // The cache off: a one-question call then fetches its KV only for the labels' later tokens.
    backends.push(
      await createOnnxBackend({
        models: [{ id: MODEL, dir: `${tmp.path}/shared-prefix` }],
        intraOpNumThreads: 1,
        kvCacheBytes: 0,
      }),
    );
    reference = await ort.InferenceSession.create(`${tmp.path}/no-past/model.onnx`, { intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of backends) await b.close();
    await reference?.release();
    tmp.remove();
  });

  it('scores labels of several tokens like a full recompute, in every layout (≤ 1e-5)', async () => {
    const m = backends[0].loaded(MODEL);
    expect(m.tokenizer.encode('Yes', { add_special_tokens: false }).ids.length).toBeGreaterThan(1);
    expect(m.tokenizer.encode('No', { add_special_tokens: false }).ids.length).toBeGreaterThan(1);
    const rendered = job(MODEL, questions).rendered;
    const stateIds = m.tokenizer.encode(rendered.prefix).ids;
    const expected: number[][] = [];
    for (const q of rendered.questions) {
      // 30 options: "A" begins "AA", so every label is closed with ")" to score complete labels.
      const labelTexts = q.labels.length > 26 ? q.labels.map((l) => `${l})`) : q.labels;
      const labels = labelTexts.map((l) => m.tokenizer.encode(l, { add_special_tokens: false }).ids);
      const suffixIds = m.tokenizer.encode(q.suffix, { add_special_tokens: false }).ids;
      expected.push(await referenceLabelLogprobs(reference, [...stateIds, ...suffixIds], labels, DIMS));
    }
    for (const backend of backends) {
      for (const cached of [false, true]) {
        if (!cached) await backend.clearCache();
        const result = await backend.score(job(MODEL, questions));
        result.scores.forEach((s, i) => expect(maxAbsDiff(s.logprobs, expected[i])).toBeLessThanOrEqual(1e-5));
        // Coverage: the whole labels' probability (every token of each), as the full recompute gives it.
        result.scores.forEach((s, i) =>
          expect(s.coveredMass).toBeCloseTo(
            expected[i].reduce((sum, lp) => sum + Math.exp(lp), 0),
            6,
          ),
        );
      }
      // One question alone (the single-pass path) as well.
      await backend.clearCache();
      const alone = await backend.score(job(MODEL, { failing: questions.failing }));
      expect(maxAbsDiff(alone.scores[0].logprobs, expected[0])).toBeLessThanOrEqual(1e-5);
    }
  });
});
