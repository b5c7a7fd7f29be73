// logits_indices added to a graph (logits-positions.ts): the rewritten graph gives, at the gathered positions,
// exactly the logits the original gives there; a merged decoder is rewritten in both branches; graphs whose LM head
// cannot be found are left as they are, saying why; and a plain export served as it is gets the rewrite at load.
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { createOnnxBackend } from '../../src/backends/onnx';
import { withLogitsIndices } from '../../src/model-tools/logits-positions';
import { encodeModel, type Model } from '../../src/model-tools/onnx-proto';
import { buildMergedTinyLm, buildOracleLm, buildTinyLm, type TinyLmSpec } from '../../tools/fixtures/generate-model';
import { generate, maxAbsDiff, tempDir } from '../onnx/fixtures';

const SPEC: TinyLmSpec = {
  seed: 7,
  layout: 'plain-past',
  vocabSize: 50,
  hidden: 16,
  layers: 2,
  heads: 2,
  maxPositions: 64,
};
const BATCH = 2;
const SEQ = 5;

const i64 = (values: number[], dims: number[]) =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );

/** Two rows of five tokens, empty past: the same feeds for the original and the rewritten graph. */
function feeds(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const ids = Array.from({ length: BATCH * SEQ }, (_, i) => (i * 7) % 50);
  const f: Record<string, ort.Tensor> = {
    input_ids: i64(ids, [BATCH, SEQ]),
    attention_mask: i64(Array<number>(BATCH * SEQ).fill(1), [BATCH, SEQ]),
    position_ids: i64(
      ids.map((_, i) => i % SEQ),
      [BATCH, SEQ],
    ),
  };
  for (let l = 0; l < SPEC.layers; l++)
    for (const kv of ['key', 'value'])
      f[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [BATCH, 2, 0, 8]);
  if (session.inputNames.includes('use_cache_branch')) f.use_cache_branch = new ort.Tensor('bool', [true], [1]);
  return f;
}

async function sameLogitsAtPicks(model: Model): Promise<void> {
  const rewritten = withLogitsIndices(model);
  if (!('model' in rewritten)) throw new Error(rewritten.reason);
  expect(rewritten.model.graph.inputs.map((i) => i.name)).toContain('logits_indices');
  const original = await ort.InferenceSession.create(encodeModel(model));
  const limited = await ort.InferenceSession.create(encodeModel(rewritten.model));
  try {
    const all = (await original.run(feeds(original), ['logits'])).logits;
    const picks = [SEQ - 1, SEQ + 2, 2 * SEQ - 1]; // row 0's last, row 1's third and last
    const some = (await limited.run({ ...feeds(limited), logits_indices: i64(picks, [picks.length]) }, ['logits']))
      .logits;
    const V = all.dims[2];
    expect(some.dims).toEqual([1, picks.length, V]);
    picks.forEach((flat, k) => {
      const want = (all.data as Float32Array).subarray(flat * V, (flat + 1) * V);
      const got = (some.data as Float32Array).subarray(k * V, (k + 1) * V);
      expect(maxAbsDiff(got, want)).toBeLessThanOrEqual(1e-6);
    });
  } finally {
    await original.release();
    await limited.release();
  }
}

describe('withLogitsIndices', () => {
  const tmp = tempDir('logits-positions-');
  afterAll(() => tmp.remove());

  it('a plain export: the same logits at the gathered positions, [1, N, V]', async () => {
    await sameLogitsAtPicks(buildTinyLm(SPEC));
  });

  for (const quantize of ['int4', 'int8-dynamic', 'int8-qdq'] as const) {
    it(`a ${quantize} export: its LM head is found through the quantized pattern, the same logits`, async () => {
      await sameLogitsAtPicks(buildTinyLm({ ...SPEC, quantize }));
    });
  }

  it('a merged decoder: both branches of its If are rewritten', async () => {
    const merged = buildMergedTinyLm(SPEC);
    const rewritten = withLogitsIndices(merged);
    if (!('model' in rewritten)) throw new Error(rewritten.reason);
    const branches = rewritten.model.graph.nodes.find((n) => n.opType === 'If')!.attributes.map((a) => a.g!);
    for (const branch of branches) expect(branch.nodes.some((n) => n.inputs.includes('logits_indices'))).toBe(true);
    await sameLogitsAtPicks(merged);
  });

  it('leaves alone, saying why, a graph whose LM head it cannot find or that already limits its logits', () => {
    const oracle = withLogitsIndices(buildOracleLm(new Float32Array(4 * 4), 4));
    expect(oracle).toEqual({ reason: 'the LM head is not a MatMul (MatMulNBits, MatMulInteger) feeding logits' });
    const shared = withLogitsIndices(buildTinyLm({ ...SPEC, layout: 'shared-prefix' }));
    expect(shared).toEqual({ reason: 'the graph already limits its logits' });
  });

  it('a plain export served as it is gets logits_indices when loaded, and serve says so', async () => {
    const plain = generate(tmp.path, 'plain', { seed: 3, layout: 'plain-past' }).dir;
    const backend = await createOnnxBackend({ models: [{ id: 'm', dir: plain }], intraOpNumThreads: 1 });
    try {
      expect(backend.loaded('m').graph.inputNames).toContain('logits_indices');
      expect(backend.loaded('m').path).toMatch(
        /logits_indices added when loaded: the LM head runs only on the positions read/,
      );
    } finally {
      await backend.close();
    }
  });
});
