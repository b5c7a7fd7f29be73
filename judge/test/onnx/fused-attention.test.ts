// Fused attention as onnxruntime-genai's model builder exports it for the CPU: com.microsoft.GroupQueryAttention
// (packed Q|K|V projection; seqlens_k and total_sequence_length computed from attention_mask). Such a graph is served
// by the plain-past path, and scores the same as the un-fused plain-past and no-past graphs with the same weights.
// The op finds each row's keys from the mask's row sums alone (no left padding) and refuses several multi-token rows
// over a past, so the backend never feeds it a padded batch: multi-token labels are finished unpadded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { ModelRun } from '../../src/backends/onnx/feeds-and-run';
import { finishLabels, unpaddedGroups } from '../../src/backends/onnx/layouts/labels';
import { loadModel, releaseModel, type LoadedModel } from '../../src/backends/onnx/model-dir';
import { readModelFiles } from '../../src/backends/onnx/model-files';
import { renderRequest } from '../../src/engine/render';
import { ConvertError, convertToSharedPrefix } from '../../src/model-tools/convert-shared-prefix';
import { TensorType, decodeModel, type Model, type Node } from '../../src/model-tools/onnx-proto';
import type { SystemOneRequest } from '../../src/protocol/types';
import { generate, maxAbsDiff, referenceLabelLogprobs, tempDir } from './fixtures';

const MODEL = 'judge-fused-test';
// head size 8: the op's CPU kernel wants a multiple of 8.
const SPEC = {
  seed: 41,
  hidden: 32,
  heads: 4,
  kvHeads: 2,
  layers: 2,
  tokenizer: { singleTokenYesNo: false, merges: 0 },
};
const DIMS = { layers: 2, heads: 2, headDim: 8 };
const state = 'Ticket 77: the nightly sync has failed three times since Monday; the customer asks for a call today.';
const questions: SystemOneRequest['questions'] = {
  failing: { type: 'noul', instructions: 'Is something failing?' },
  ask: { type: 'choice', criteria: { call: null, refund: null, nothing: null } },
  urgency: { type: 'score', criteria: ['low', 'medium', 'high'] },
};
const job = () => ({ model: MODEL, state, rendered: renderRequest({ state, questions }) });

const producer = (model: Model, value: string) => model.graph.nodes.find((n) => n.outputs.includes(value))!;
const int = (node: Node, name: string) => Number(node.attributes.find((a) => a.name === name)?.i);

const i64 = (rows: number[][]) =>
  new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0].length]);

/** One raw run of a plain-past graph over an empty past: its logits [B, T, V]. */
async function rawRun(session: ort.InferenceSession, ids: number[][], mask: number[][], positions: number[][]) {
  const feeds: Record<string, ort.Tensor> = {
    input_ids: i64(ids),
    attention_mask: i64(mask),
    position_ids: i64(positions),
  };
  for (let l = 0; l < DIMS.layers; l++)
    for (const kv of ['key', 'value'])
      feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [
        ids.length,
        DIMS.heads,
        0,
        DIMS.headDim,
      ]);
  return (await session.run(feeds, ['logits'])).logits;
}

const logitsAt = (logits: ort.Tensor, row: number, column: number): Float32Array => {
  const [, width, vocab] = logits.dims;
  const at = (row * width + column) * vocab;
  return (logits.data as Float32Array).slice(at, at + vocab);
};

describe('fused GroupQueryAttention exports (onnxruntime-genai model builder)', () => {
  const tmp = tempDir('onnx-fused-');
  const kinds = ['fused', 'plain', 'none'] as const;
  const backends: Record<(typeof kinds)[number], OnnxBackend> = {} as never;
  const dirs: Record<(typeof kinds)[number], string> = {} as never;
  let reference: ort.InferenceSession;

  beforeAll(async () => {
    dirs.fused = generate(tmp.path, 'fused', {
      ...SPEC,
      layout: 'plain-past',
      fusedAttention: 'GroupQueryAttention',
    }).dir;
    dirs.plain = generate(tmp.path, 'plain', { ...SPEC, layout: 'plain-past' }).dir;
    dirs.none = generate(tmp.path, 'none', { ...SPEC, layout: 'no-past' }).dir;
    for (const kind of kinds)
      backends[kind] = await createOnnxBackend({ models: [{ id: MODEL, dir: dirs[kind] }], intraOpNumThreads: 1 });
    reference = await ort.InferenceSession.create(join(dirs.none, 'model.onnx'), { intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    await reference?.release();
    tmp.remove();
  });

  it('the graph has the model builder pattern: packed QKV into GroupQueryAttention, lengths from the mask', () => {
    const model = decodeModel(readFileSync(join(dirs.fused, 'model.onnx')));
    expect(model.opsetImport).toContainEqual({ domain: 'com.microsoft', version: 1 });
    const gqa = model.graph.nodes.filter((n) => n.opType === 'GroupQueryAttention');
    expect(gqa.length).toBe(2);
    expect(model.graph.nodes.some((n) => n.opType === 'Softmax')).toBe(false);
    for (const [l, node] of gqa.entries()) {
      expect(node.domain).toBe('com.microsoft');
      expect(int(node, 'num_heads')).toBe(4);
      expect(int(node, 'kv_num_heads')).toBe(2);
      expect(int(node, 'do_rotary')).toBe(0);
      expect(node.attributes.find((a) => a.name === 'scale')?.f).toBeCloseTo(1 / Math.sqrt(8), 6);
      // query (packed Q|K|V: 4 + 2·2 heads of 8), no key/value, the past, seqlens_k, total_sequence_length, no cos/sin.
      const [query, key, value, pastKey, pastValue, seqlensK, totalLength, cos, sin] = node.inputs;
      expect([key, value, cos, sin]).toEqual(['', '', '', '']);
      expect([pastKey, pastValue]).toEqual([`past_key_values.${l}.key`, `past_key_values.${l}.value`]);
      expect(node.outputs.slice(1)).toEqual([`present.${l}.key`, `present.${l}.value`]);
      const qkv = producer(model, query);
      expect(qkv.opType).toBe('MatMul');
      expect(model.graph.initializers.find((t) => t.name === qkv.inputs[1])?.dims).toEqual([32, 64]);
      // seqlens_k = Cast<int32>(ReduceSum(attention_mask, [1], keepdims 0) - 1)
      const castK = producer(model, seqlensK);
      expect([castK.opType, int(castK, 'to')]).toEqual(['Cast', TensorType.INT32]);
      const sub = producer(model, castK.inputs[0]);
      expect(sub.opType).toBe('Sub');
      const sum = producer(model, sub.inputs[0]);
      expect([sum.opType, sum.inputs[0], int(sum, 'keepdims')]).toEqual(['ReduceSum', 'attention_mask', 0]);
      // total_sequence_length = Cast<int32>(Shape(attention_mask)[1])
      const castT = producer(model, totalLength);
      expect([castT.opType, int(castT, 'to')]).toEqual(['Cast', TensorType.INT32]);
      const gather = producer(model, castT.inputs[0]);
      expect(gather.opType).toBe('Gather');
      expect(producer(model, gather.inputs[0]).inputs).toEqual(['attention_mask']);
    }
  });

  it('is served by the plain-past path, and serve says the label rows run unpadded', () => {
    const fused = backends.fused.loaded(MODEL);
    expect(fused.graph).toMatchObject({
      layout: 'plain-past',
      heads: 2,
      headDim: 8,
      fusedAttention: 'GroupQueryAttention',
    });
    expect(fused.path).toMatch(/^plain-past path/);
    expect(fused.path).toContain(
      'fused GroupQueryAttention (ONNX Runtime contrib op): label rows run unpadded (one-token rows together, longer ones one by one)',
    );
    expect(backends.plain.loaded(MODEL).graph.fusedAttention).toBeUndefined();
    expect(backends.plain.loaded(MODEL).path).not.toContain('fused');
  });

  it('convert still refuses it, naming the fused op', () => {
    const model = decodeModel(readFileSync(join(dirs.fused, 'model.onnx')));
    expect(() => convertToSharedPrefix(model)).toThrow(ConvertError);
    expect(() => convertToSharedPrefix(model)).toThrow(/GroupQueryAttention.*contrib op \(fused attention\)/);
  });

  it('scores the same as the un-fused plain-past and no-past graphs and a from-scratch recompute (≤ 1e-4)', async () => {
    const m = backends.fused.loaded(MODEL);
    const rendered = job().rendered;
    const stateIds = m.tokenizer.encode(rendered.prefix).ids;
    const expected: number[][] = [];
    const labelLengths = new Set<number>();
    for (const q of rendered.questions) {
      const labels = q.labels.map((l) => m.tokenizer.encode(l, { add_special_tokens: false }).ids);
      labels.forEach((l) => labelLengths.add(l.length));
      const suffixIds = m.tokenizer.encode(q.suffix, { add_special_tokens: false }).ids;
      expected.push(await referenceLabelLogprobs(reference, [...stateIds, ...suffixIds], labels, DIMS));
    }
    expect(expected.flat().some((lp) => Math.abs(lp) > 1e-3)).toBe(true);
    // Labels of several tokens beside one-token labels: multi-token labels are finished from the question's KV.
    expect(Math.max(...labelLengths)).toBeGreaterThan(2);
    expect(labelLengths.size).toBeGreaterThan(1);
    const runs: Record<string, number> = {};
    for (const kind of kinds) {
      const backend = backends[kind];
      await backend.clearCache();
      const before = backend.stats.runs;
      const result = await backend.score(job());
      runs[kind] = backend.stats.runs - before;
      result.scores.forEach((s, i) =>
        expect(maxAbsDiff(s.logprobs, expected[i]), `${kind} ${i}`).toBeLessThanOrEqual(1e-4),
      );
      // Again from the state-KV cache.
      const cached = await backend.score(job());
      cached.scores.forEach((s, i) =>
        expect(maxAbsDiff(s.logprobs, expected[i]), `${kind} cached ${i}`).toBeLessThanOrEqual(1e-4),
      );
    }
    expect(runs.fused).toBeGreaterThanOrEqual(runs.plain);
  });

  describe('multi-token labels of unequal length, finished in process', () => {
    const loaded: Partial<Record<'fused' | 'plain', LoadedModel>> = {};
    const context = [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50];
    // Rows of 1, 1, 2 and 3 tokens after the context: padded to 3 in one batch without fused attention.
    const labels = [
      [60, 61],
      [62, 63],
      [64, 65, 66],
      [67, 68, 69, 70],
    ];

    beforeAll(async () => {
      for (const kind of ['fused', 'plain'] as const) {
        const files = readModelFiles(dirs[kind]);
        loaded[kind] = await loadModel(
          { id: kind, dir: dirs[kind], config: files.config, maxPositions: files.maxPositions, padId: files.padId },
          1,
        );
      }
    });

    afterAll(async () => {
      for (const m of Object.values(loaded)) if (m) await releaseModel(m);
    });

    /** The later tokens of every label over the context's KV, as the plain-past path finishes them. */
    async function finish(model: LoadedModel): Promise<{ rest: number[]; runs: number }> {
      const run = new ModelRun(model, () => false);
      const out = await run.run({
        rows: [context],
        startPositions: [0],
        pastMasks: [[]],
        wantPresent: true,
        reads: [{ row: 0, column: context.length - 1 }],
      });
      const q = { suffixIds: context, labelIds: labels };
      const before = run.stats.runs;
      const [rest] = await finishLabels(run, [q], out.present!, [0], [context.map(() => 1)], [context.length]);
      return { rest, runs: run.stats.runs - before };
    }

    it('groups the rows unpadded: one-token rows together, longer rows alone', () => {
      expect(unpaddedGroups([1, 1, 2, 3])).toEqual([[0, 1], [2], [3]]);
      expect(unpaddedGroups([3, 1, 2, 1])).toEqual([[1, 3], [0], [2]]);
      expect(unpaddedGroups([2, 2])).toEqual([[0], [1]]);
      expect(unpaddedGroups([1])).toEqual([[0]]);
    });

    it('the fused graph finishes them as the un-fused one does (≤ 1e-4), in unpadded runs', async () => {
      const fused = await finish(loaded.fused!);
      const plain = await finish(loaded.plain!);
      expect(plain.rest.every((lp) => lp < -1e-3)).toBe(true);
      expect(maxAbsDiff(fused.rest, plain.rest)).toBeLessThanOrEqual(1e-4);
      // And as a from-scratch recompute of the later tokens.
      const scratch = await referenceLabelLogprobs(reference, context, labels, DIMS);
      const firsts = await referenceLabelLogprobs(
        reference,
        context,
        labels.map((l) => [l[0]]),
        DIMS,
      );
      expect(
        maxAbsDiff(
          fused.rest,
          scratch.map((lp, i) => lp - firsts[i]),
        ),
      ).toBeLessThanOrEqual(1e-4);
      expect(plain.runs).toBe(1);
      expect(fused.runs).toBe(3);
    });

    it('fed the padded batch instead, the fused graph fails or scores differently (what the grouping prevents)', async () => {
      const fused = loaded.fused!;
      const unguarded: LoadedModel = { ...fused, graph: { ...fused.graph, fusedAttention: undefined } };
      const plain = await finish(loaded.plain!);
      const padded = await finish(unguarded).then(
        (r) => r.rest,
        (error: Error) => error,
      );
      if (padded instanceof Error) expect(padded.message).toMatch(/GroupQueryAttention|batch_size/);
      else expect(maxAbsDiff(padded, plain.rest)).toBeGreaterThan(1e-2);
    });

    it('a left-padded batch over no past: the un-fused graph masks the padding, the fused op does not', async () => {
      const sessions = {
        fused: await ort.InferenceSession.create(join(dirs.fused, 'model.onnx'), { intraOpNumThreads: 1 }),
        plain: await ort.InferenceSession.create(join(dirs.plain, 'model.onnx'), { intraOpNumThreads: 1 }),
      };
      try {
        const short = [5, 9, 14];
        const long = [3, 5, 9, 14, 20];
        const ids = [[0, 0, ...short], long];
        const mask = [
          [0, 0, 1, 1, 1],
          [1, 1, 1, 1, 1],
        ];
        const positions = [
          [0, 0, 0, 1, 2],
          [0, 1, 2, 3, 4],
        ];
        const alone = {
          fused: logitsAt(await rawRun(sessions.fused, [short], [[1, 1, 1]], [[0, 1, 2]]), 0, 2),
          plain: logitsAt(await rawRun(sessions.plain, [short], [[1, 1, 1]], [[0, 1, 2]]), 0, 2),
        };
        // Unpadded, the two graphs agree.
        expect(maxAbsDiff(alone.fused, alone.plain)).toBeLessThanOrEqual(1e-4);
        const batched = {
          fused: await rawRun(sessions.fused, ids, mask, positions),
          plain: await rawRun(sessions.plain, ids, mask, positions),
        };
        // The un-fused graph's attention_mask hides the padding: the short row reads as alone.
        expect(maxAbsDiff(logitsAt(batched.plain, 0, 4), alone.plain)).toBeLessThanOrEqual(1e-4);
        // GroupQueryAttention takes the row's first seqlens_k + 1 keys (padding included, its own last ones not).
        expect(maxAbsDiff(logitsAt(batched.fused, 0, 4), alone.fused)).toBeGreaterThan(1e-2);
        // The unpadded row is right either way.
        expect(maxAbsDiff(logitsAt(batched.fused, 1, 4), logitsAt(batched.plain, 1, 4))).toBeLessThanOrEqual(1e-4);
      } finally {
        await sessions.fused.release();
        await sessions.plain.release();
      }
    });
  });
});
