// The generator's shapes for the Qwen2.5-0.5B-shaped benchmark (tools/bench/qwen-shape.ts), at toy size: the gated
// (SwiGLU) MLP with GQA and rotary positions scores the same in the shared-prefix graph as in the no-past graph of the
// same seed; int4 weights drawn already packed give a MatMulNBits graph the backend loads and reads; the external
// data file is written chunk by chunk.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOnnxBackend } from '../../src/backends/onnx';
import { renderRequest } from '../../src/engine/render';
import { decodeModel, externalDataFiles } from '../../src/model-tools/onnx-proto';
import { buildTinyLm } from '../../tools/fixtures/generate-model';
import { generate, maxAbsDiff, tempDir } from './fixtures';

const SHAPE = { seed: 5, hidden: 64, heads: 4, kvHeads: 2, layers: 2, intermediate: 96, gatedMlp: true, rotary: true };
const state = 'Ticket 12: the export failed twice since Monday and the customer needs it by Friday.';
const questions = {
  failing: { type: 'noul' as const, instructions: 'Is something failing?' },
  urgency: { type: 'score' as const, criteria: ['low', 'medium', 'high'] },
};
const job = () => ({ model: 'm', state, rendered: renderRequest({ state, questions }) });
const weightedOps = (dir: string, op: string) => {
  const graph = decodeModel(readFileSync(join(dir, 'model.onnx'))).graph;
  const constants = new Set(graph.initializers.map((t) => t.name));
  return graph.nodes.filter((n) => n.opType === op && constants.has(n.inputs[1])).length;
};

describe("the generator's benchmark shapes", () => {
  const tmp = tempDir('bench-shapes-');
  afterAll(() => tmp.remove());

  it('a gated MLP (three projections a layer) scores alike in the shared-prefix and no-past graphs', async () => {
    const shared = generate(tmp.path, 'shared', { ...SHAPE, layout: 'shared-prefix', externalData: 'model.onnx_data' });
    const none = generate(tmp.path, 'none', { ...SHAPE, layout: 'no-past' }).dir;
    // q, k, v, o, gate, up, down per layer, then the LM head.
    expect(weightedOps(shared.dir, 'MatMul')).toBe(2 * 7 + 1);
    expect(externalDataFiles(decodeModel(readFileSync(join(shared.dir, 'model.onnx'))))).toEqual(['model.onnx_data']);
    expect(statSync(join(shared.dir, 'model.onnx_data')).size).toBeGreaterThan(4 * 2 * 3 * 64 * 96);
    const [a, b] = await Promise.all(
      [shared.dir, none].map((dir) => createOnnxBackend({ models: [{ id: 'm', dir }], intraOpNumThreads: 1 })),
    );
    try {
      const [x, y] = [await a.score(job()), await b.score(job())];
      x.scores.forEach((s, i) => expect(maxAbsDiff(s.logprobs, y.scores[i].logprobs)).toBeLessThanOrEqual(1e-5));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('int4 drawn already packed: MatMulNBits everywhere, loaded and read like any int4 model', async () => {
    const { dir } = generate(tmp.path, 'int4', {
      ...SHAPE,
      layout: 'shared-prefix',
      quantize: 'int4',
      blockSize: 32,
      randomPackedInt4: true,
    });
    expect(weightedOps(dir, 'MatMulNBits')).toBe(2 * 7 + 1);
    expect(weightedOps(dir, 'MatMul')).toBe(0);
    const backend = await createOnnxBackend({ models: [{ id: 'm', dir }], intraOpNumThreads: 1 });
    try {
      const { scores } = await backend.score(job());
      for (const s of scores) {
        expect(s.logprobs.every(Number.isFinite)).toBe(true);
        expect(s.coveredMass).toBeGreaterThan(0);
        expect(s.coveredMass).toBeLessThanOrEqual(1);
      }
    } finally {
      await backend.close();
    }
  });

  it('randomPackedInt4 without symmetric int4 is refused', () => {
    const base = {
      ...SHAPE,
      layout: 'shared-prefix' as const,
      vocabSize: 300,
      maxPositions: 64,
      randomPackedInt4: true,
    };
    expect(() => buildTinyLm(base)).toThrow(/symmetric int4/);
    expect(() => buildTinyLm({ ...base, quantize: 'int4', symmetric: false })).toThrow(/symmetric int4/);
  });
});
