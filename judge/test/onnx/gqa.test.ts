// Grouped-query attention (num_key_value_heads < num_attention_heads), as Llama / Qwen2 exports lay it out: KV
// inputs [B, kv_heads, seq, D] and transformers' repeat_kv (Unsqueeze → Expand → Reshape, shapes read from the keys).
// A generated GQA export scores the same by every path: as exported (plain past), converted to shared prefix, a
// natively generated shared-prefix GQA graph, the no-past graph, and a from-scratch recompute.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { renderRequest } from '../../src/engine/render';
import { ConvertError, convertToSharedPrefix } from '../../src/model-tools/convert-shared-prefix';
import type { SystemOneRequest } from '../../src/protocol/types';
import { buildTinyLm } from '../../tools/fixtures/generate-model';
import { convertDir, generate, maxAbsDiff, referenceLabelLogprobs, tempDir } from './fixtures';

const MODEL = 'judge-gqa-test';
const GQA = { seed: 31, hidden: 32, heads: 8, kvHeads: 2, layers: 2, tokenizer: { singleTokenYesNo: false } };
const state = 'Ticket 77: the nightly sync has failed three times since Monday; the customer asks for a call today.';
const questions: SystemOneRequest['questions'] = {
  failing: { type: 'noul', instructions: 'Is something failing?' },
  ask: { type: 'choice', criteria: { call: null, refund: null, nothing: null } },
  urgency: { type: 'score', criteria: ['low', 'medium', 'high'] },
};
const job = () => ({ model: MODEL, state, rendered: renderRequest({ state, questions }) });

describe('grouped-query attention exports', () => {
  const tmp = tempDir('onnx-gqa-');
  const kinds = ['plain', 'converted', 'native', 'none'] as const;
  const backends: Record<(typeof kinds)[number], OnnxBackend> = {} as never;
  let reference: ort.InferenceSession;

  beforeAll(async () => {
    const plain = generate(tmp.path, 'plain', { ...GQA, layout: 'plain-past' }).dir;
    const native = generate(tmp.path, 'native', { ...GQA, layout: 'shared-prefix' }).dir;
    const none = generate(tmp.path, 'none', { ...GQA, layout: 'no-past' }).dir;
    const converted = join(tmp.path, 'converted');
    convertDir(plain, converted);
    const dirs = { plain, converted, native, none };
    for (const kind of kinds)
      backends[kind] = await createOnnxBackend({ models: [{ id: MODEL, dir: dirs[kind] }], intraOpNumThreads: 1 });
    reference = await ort.InferenceSession.create(join(none, 'model.onnx'), { intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    await reference?.release();
    tmp.remove();
  });

  it('the export has the Llama shape: KV of kv_heads, repeat_kv before attention', () => {
    const model = buildTinyLm({
      seed: 1,
      layout: 'plain-past',
      vocabSize: 300,
      hidden: 32,
      heads: 8,
      kvHeads: 2,
      layers: 1,
      maxPositions: 64,
    });
    expect(model.graph.inputs.find((i) => i.name === 'past_key_values.0.key')?.shape).toEqual([
      'batch_size',
      2,
      'past_sequence_length',
      4,
    ]);
    const ops = model.graph.nodes.map((n) => n.opType);
    expect(ops.filter((o) => o === 'Expand').length).toBe(2);
    expect(backends.plain.loaded(MODEL).graph).toMatchObject({ layout: 'plain-past', heads: 2, headDim: 4 });
    expect(backends.converted.loaded(MODEL).graph).toMatchObject({ layout: 'shared-prefix', heads: 2, headDim: 4 });
  });

  it('scores the same by every path, and like a from-scratch recompute (≤ 1e-5)', async () => {
    const m = backends.plain.loaded(MODEL);
    const rendered = job().rendered;
    const stateIds = m.tokenizer.encode(rendered.prefix).ids;
    const expected: number[][] = [];
    for (const q of rendered.questions) {
      const labels = q.labels.map((l) => m.tokenizer.encode(l, { add_special_tokens: false }).ids);
      const suffixIds = m.tokenizer.encode(q.suffix, { add_special_tokens: false }).ids;
      expected.push(
        await referenceLabelLogprobs(reference, [...stateIds, ...suffixIds], labels, {
          layers: 2,
          heads: 2,
          headDim: 4,
        }),
      );
    }
    expect(expected.flat().some((lp) => Math.abs(lp) > 1e-3)).toBe(true);
    // Multi-token labels: their later tokens run from each row's own present KV (of kv_heads).
    expect(m.tokenizer.encode('Yes', { add_special_tokens: false }).ids.length).toBeGreaterThan(1);
    const runs: Record<string, number> = {};
    for (const kind of kinds) {
      const backend = backends[kind];
      await backend.clearCache();
      const before = backend.stats.runs;
      const result = await backend.score(job());
      runs[kind] = backend.stats.runs - before;
      result.scores.forEach((s, i) =>
        expect(maxAbsDiff(s.logprobs, expected[i]), `${kind} ${i}`).toBeLessThanOrEqual(1e-5),
      );
      // Again from the state-KV cache.
      const cached = await backend.score(job());
      cached.scores.forEach((s, i) => expect(maxAbsDiff(s.logprobs, expected[i])).toBeLessThanOrEqual(1e-5));
    }
    // The converted graph batches the questions over the shared state as the native one does; plain past runs them
    // one by one.
    expect(runs.converted).toBe(runs.native);
    expect(runs.converted).toBeLessThan(runs.plain);
  });

  it('refuses a repeat_kv whose shape is not read from the keys, naming it', () => {
    const model = buildTinyLm({
      seed: 1,
      layout: 'plain-past',
      vocabSize: 300,
      hidden: 32,
      heads: 8,
      kvHeads: 2,
      layers: 1,
      maxPositions: 64,
    });
    // The first Shape of repeat_kv reads present.0.key; make it read input_ids instead.
    const shape = model.graph.nodes.find((n) => n.opType === 'Shape' && n.inputs[0] === 'present.0.key')!;
    shape.inputs[0] = 'input_ids';
    expect(() => convertToSharedPrefix(model)).toThrow(ConvertError);
    expect(() => convertToSharedPrefix(model)).toThrow(
      /present\.0\.key: a shape on the path to the attention MatMul is read from "input_ids", not from the keys\/values/,
    );
  });
});
