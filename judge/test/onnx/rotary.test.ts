// Rotary position embeddings (RoPE), as every current small model has them (Llama 3, Qwen2.5, SmolLM2, Phi): the
// generator's `rotary` option, un-fused as torch.onnx traces transformers' Llama (inv_freq · position_ids → Cos/Sin,
// q·cos + rotate_half(q)·sin on the queries and the new keys, before the KV Concat) and fused as onnxruntime-genai's
// CPU export writes it (GroupQueryAttention with do_rotary 1 and cos_cache/sin_cache, no position_ids input). A
// rotary export scores the same by every path: served as it is (plain past), converted to shared prefix by
// `convert` (packed), generated shared-prefix, no past, and fused; and its positions really matter.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { renderRequest } from '../../src/engine/render';
import { decodeModel, encodeModel, type Model, type Node } from '../../src/model-tools/onnx-proto';
import type { SystemOneRequest } from '../../src/protocol/types';
import { ropeInverseFrequencies } from '../../tools/fixtures/generate-model';
import { loadCorpus } from '../helpers/repo';
import { convertDir, generate, maxAbsDiff, tempDir } from './fixtures';

const MODEL = 'judge-rotary-test';
// Head size 16: even for RoPE, and a multiple of 16 for GroupQueryAttention's CPU kernel with cos/sin caches.
const SPEC = { seed: 23, hidden: 32, heads: 2, kvHeads: 1, layers: 2, maxPositions: 8192, rotary: true };
const HEAD_DIM = 16;
const CASES = 24;

const producer = (model: Model, value: string) => model.graph.nodes.find((n) => n.outputs.includes(value));
const int = (node: Node, name: string) => Number(node.attributes.find((a) => a.name === name)?.i);
/** A float32 initializer's values (its raw bytes copied: a decoded Buffer may be a view into a larger pool). */
const floats = (raw: Uint8Array | undefined) => new Float32Array(Uint8Array.from(raw!).buffer);
const i64 = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);

/** The logits of every position of one no-past run with the given positions. */
async function logitsWithPositions(session: ort.InferenceSession, ids: number[], positions: number[]) {
  const out = await session.run(
    { input_ids: i64(ids), attention_mask: i64(ids.map(() => 1)), position_ids: i64(positions) },
    ['logits'],
  );
  return out.logits.data as Float32Array;
}

describe('rotary position embeddings (RoPE)', () => {
  const tmp = tempDir('onnx-rotary-');
  const kinds = ['plain', 'converted', 'native', 'none', 'fused'] as const;
  type Kind = (typeof kinds)[number];
  const dirs = {} as Record<Kind, string>;
  const backends = {} as Record<Kind, OnnxBackend>;
  let convertNotes: string[] = [];

  beforeAll(async () => {
    const trainingText = loadCorpus()
      .map((c) => `${typeof c.state === 'string' ? c.state : JSON.stringify(c.state)}\n${JSON.stringify(c.questions)}`)
      .join('\n')
      .slice(0, 60_000);
    const spec = { ...SPEC, tokenizer: { trainingText, merges: 600, singleTokenYesNo: false } };
    dirs.plain = generate(tmp.path, 'plain', { ...spec, layout: 'plain-past' }).dir;
    dirs.native = generate(tmp.path, 'native', { ...spec, layout: 'shared-prefix' }).dir;
    dirs.none = generate(tmp.path, 'none', { ...spec, layout: 'no-past' }).dir;
    dirs.fused = generate(tmp.path, 'fused', {
      ...spec,
      layout: 'plain-past',
      fusedAttention: 'GroupQueryAttention',
    }).dir;
    dirs.converted = join(tmp.path, 'converted');
    convertNotes = convertDir(dirs.plain, dirs.converted).notes;
    for (const kind of kinds)
      backends[kind] = await createOnnxBackend({ models: [{ id: MODEL, dir: dirs[kind] }], intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    tmp.remove();
  });

  it('the un-fused export has transformers’ RoPE on q and k before the KV Concat, and no wpe', () => {
    const model = decodeModel(readFileSync(join(dirs.plain, 'model.onnx')));
    const config = JSON.parse(readFileSync(join(dirs.plain, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ model_type: 'llama', rope_theta: 10000, head_dim: HEAD_DIM });
    expect(model.graph.inputs.map((i) => i.name)).toContain('position_ids');
    expect(model.graph.initializers.some((t) => /wpe/.test(t.name))).toBe(false);
    const ops = model.graph.nodes.map((n) => n.opType);
    // cos/sin once for the model; per layer, rotate_half (one Neg) on q and on k.
    expect(ops.filter((o) => o === 'Cos')).toHaveLength(1);
    expect(ops.filter((o) => o === 'Sin')).toHaveLength(1);
    expect(ops.filter((o) => o === 'Neg')).toHaveLength(2 * SPEC.layers);
    const invFreq = model.graph.initializers.find((t) => /inv_freq/.test(t.name))!;
    expect(invFreq.dims).toEqual([1, HEAD_DIM / 2, 1]);
    expect(floats(invFreq.rawData)).toEqual(ropeInverseFrequencies(HEAD_DIM, 10000));
    for (let l = 0; l < SPEC.layers; l++) {
      // present.{l}.key = Concat(past, k_embed), k_embed = Add(Mul(k, cos), Mul(Concat(Neg(x2), x1), sin))
      const concat = producer(model, `present.${l}.key`)!;
      expect(concat.opType).toBe('Concat');
      const embed = producer(model, concat.inputs[1])!;
      expect(embed.opType).toBe('Add');
      const [direct, rotated] = embed.inputs.map((i) => producer(model, i)!);
      expect([direct.opType, rotated.opType]).toEqual(['Mul', 'Mul']);
      const rotateHalf = producer(model, rotated.inputs[0])!;
      expect(rotateHalf.opType).toBe('Concat');
      expect(producer(model, rotateHalf.inputs[0])!.opType).toBe('Neg');
      expect(producer(model, rotateHalf.inputs[1])!.opType).toBe('Slice');
      // The values are not rotated.
      expect(producer(model, producer(model, `present.${l}.value`)!.inputs[1])!.opType).toBe('Transpose');
    }
  });

  it('the fused export has the builder’s rotary GroupQueryAttention: do_rotary 1, cos/sin caches, no position_ids', () => {
    const model = decodeModel(readFileSync(join(dirs.fused, 'model.onnx')));
    expect(model.graph.inputs.map((i) => i.name)).not.toContain('position_ids');
    expect(model.graph.nodes.some((n) => ['Cos', 'Sin', 'Softmax'].includes(n.opType))).toBe(false);
    const caches = ['cos_cache', 'sin_cache'].map((name) => model.graph.initializers.find((t) => t.name === name)!);
    for (const cache of caches) expect(cache.dims).toEqual([SPEC.maxPositions, HEAD_DIM / 2]);
    // cos_cache[p, i] = cos(p · inv_freq[i]).
    const cos = floats(caches[0].rawData);
    const inv = ropeInverseFrequencies(HEAD_DIM, 10000);
    expect(cos[1 * 8 + 0]).toBeCloseTo(Math.cos(inv[0]), 6);
    expect(cos[300 * 8 + 3]).toBeCloseTo(Math.cos(Math.fround(300 * inv[3])), 6);
    const gqa = model.graph.nodes.filter((n) => n.opType === 'GroupQueryAttention');
    expect(gqa).toHaveLength(SPEC.layers);
    for (const node of gqa) {
      expect(node.domain).toBe('com.microsoft');
      expect([int(node, 'do_rotary'), int(node, 'rotary_interleaved')]).toEqual([1, 0]);
      expect(node.inputs.slice(7, 9)).toEqual(['cos_cache', 'sin_cache']);
    }
    expect(backends.fused.loaded(MODEL).graph).toMatchObject({
      layout: 'plain-past',
      fusedAttention: 'GroupQueryAttention',
      headDim: HEAD_DIM,
    });
    expect(backends.fused.loaded(MODEL).graph.inputNames).not.toContain('position_ids');
  });

  it('convert takes the rotary export as it is (RoPE sits before the KV Concat) and makes it packable', () => {
    expect(convertNotes).toContain('grouped-query attention: repeat_kv (Expand/Reshape) replayed on the prefix');
    expect(convertNotes).toContain('logits_indices: the LM head runs only on the positions read');
    const converted = backends.converted.loaded(MODEL);
    expect(converted.graph).toMatchObject({ layout: 'shared-prefix', packing: true, headDim: HEAD_DIM });
    expect(converted.path).toMatch(/packing: short questions share a batch row/);
  });

  it(`on ${CASES} JevBench-240 cases: every path gives the same probabilities (≤ 1e-4), packing saves padding`, async () => {
    const corpus = loadCorpus().slice(0, CASES);
    const worst = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
    const worstLog = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
    let compared = 0;
    let savedPadding = 0;
    let spread = 0;
    let multiToken = false;
    for (const c of corpus) {
      const state = c.state as SystemOneRequest['state'];
      const questions = c.questions as SystemOneRequest['questions'];
      const request = { model: MODEL, state, rendered: renderRequest({ state, questions }) };
      const lengths = request.rendered.questions.map((q) => backends.converted.countTokens(MODEL, q.suffix));
      multiToken ||= request.rendered.questions.some((q) =>
        q.labels.some((l) => backends.converted.loaded(MODEL).prompt.labelIds(l).length > 1),
      );
      const unpackedPadding = lengths.reduce((sum, n) => sum + Math.max(...lengths) - n, 0);
      const before = backends.converted.stats;
      const results = {} as Record<Kind, Awaited<ReturnType<OnnxBackend['score']>>>;
      for (const kind of kinds) results[kind] = await backends[kind].score(request);
      savedPadding += unpackedPadding - (backends.converted.stats.paddingTokens - before.paddingTokens);
      results.plain.scores.forEach((reference, i) => {
        const probs = reference.logprobs.map(Math.exp);
        spread = Math.max(spread, Math.max(...reference.logprobs) - Math.min(...reference.logprobs));
        for (const kind of kinds) {
          const scores = results[kind].scores[i].logprobs;
          worst[kind] = Math.max(worst[kind], maxAbsDiff(scores.map(Math.exp), probs));
          worstLog[kind] = Math.max(worstLog[kind], maxAbsDiff(scores, reference.logprobs));
        }
        compared++;
      });
    }
    expect(compared).toBeGreaterThan(20);
    // The labels' scores are not flat (a comparison of near-uniform outputs would prove little).
    expect(spread).toBeGreaterThan(0.5);
    expect(savedPadding).toBeGreaterThan(0);
    // Label probabilities over the full vocabulary are small: their log-probabilities are compared as well.
    for (const kind of kinds) expect(worstLog[kind], `${kind} log-probabilities`).toBeLessThanOrEqual(1e-4);
    for (const kind of kinds) expect(worst[kind], `${kind} probabilities`).toBeLessThanOrEqual(1e-4);
    // Labels of several tokens were among them (finished from each question's KV; unpadded for the fused graph).
    expect(multiToken).toBe(true);
  }, 300_000);

  it('the positions matter: relative (a uniform shift changes nothing), and a gap changes the logits', async () => {
    const session = await ort.InferenceSession.create(join(dirs.none, 'model.onnx'), { intraOpNumThreads: 1 });
    try {
      const ids = [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51];
      const at = (offset: (i: number) => number) =>
        logitsWithPositions(
          session,
          ids,
          ids.map((_, i) => offset(i)),
        );
      const base = await at((i) => i);
      // RoPE scores depend only on q and k positions' difference: a state at 0… or at 300… reads the same.
      expect(maxAbsDiff(await at((i) => i + 300), base)).toBeLessThanOrEqual(1e-4);
      // A gap of 20 positions in the middle changes what the later tokens read.
      expect(maxAbsDiff(await at((i) => (i < 6 ? i : i + 20)), base)).toBeGreaterThan(1e-2);
    } finally {
      await session.release();
    }
  });

  it('the fused op’s rotary matters: the same graph with do_rotary 0 (no cos/sin) scores differently', async () => {
    const model = decodeModel(readFileSync(join(dirs.fused, 'model.onnx')));
    for (const node of model.graph.nodes.filter((n) => n.opType === 'GroupQueryAttention')) {
      node.attributes = node.attributes.map((a) => (a.name === 'do_rotary' ? { ...a, i: 0n } : a));
      node.inputs = node.inputs.map((input, i) => (i === 7 || i === 8 ? '' : input));
    }
    model.graph.initializers = model.graph.initializers.filter((t) => !/^(cos|sin)_cache$/.test(t.name));
    const sessions = await Promise.all(
      [readFileSync(join(dirs.fused, 'model.onnx')), encodeModel(model)].map((bytes) =>
        ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 }),
      ),
    );
    try {
      const ids = [40, 41, 42, 43, 44, 45, 46, 47];
      const feeds: Record<string, ort.Tensor> = { input_ids: i64(ids), attention_mask: i64(ids.map(() => 1)) };
      for (let l = 0; l < SPEC.layers; l++)
        for (const kv of ['key', 'value'])
          feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, 1, 0, HEAD_DIM]);
      const [rotary, without] = await Promise.all(sessions.map((s) => s.run(feeds, ['logits'])));
      expect(maxAbsDiff(rotary.logits.data as Float32Array, without.logits.data as Float32Array)).toBeGreaterThan(1e-2);
    } finally {
      for (const s of sessions) await s.release();
    }
  });

  it('float16: a rotary plain export, converted and packed, scores like the export served as it is', async () => {
    const spec = { ...SPEC, seed: 29, float16: true, tokenizer: { trainingText: loadCorpus()[0].state as string } };
    const plain = generate(tmp.path, 'fp16-plain', { ...spec, layout: 'plain-past' }).dir;
    const converted = join(tmp.path, 'fp16-converted');
    convertDir(plain, converted);
    const asExported = await createOnnxBackend({ models: [{ id: MODEL, dir: plain }], intraOpNumThreads: 1 });
    const packable = await createOnnxBackend({ models: [{ id: MODEL, dir: converted }], intraOpNumThreads: 1 });
    try {
      expect(packable.loaded(MODEL).graph).toMatchObject({ packing: true, kvType: 'float16' });
      let worst = 0;
      for (const c of loadCorpus().slice(0, 3)) {
        const state = c.state as SystemOneRequest['state'];
        const questions = c.questions as SystemOneRequest['questions'];
        const request = { model: MODEL, state, rendered: renderRequest({ state, questions }) };
        const a = await packable.score(request);
        const b = await asExported.score(request);
        a.scores.forEach((s, i) => {
          worst = Math.max(worst, maxAbsDiff(s.logprobs.map(Math.exp), b.scores[i].logprobs.map(Math.exp)));
        });
      }
      expect(worst).toBeLessThanOrEqual(1e-4);
    } finally {
      await asExported.close();
      await packable.close();
    }
  }, 120_000);
});
