// float16 exports (model_fp16.onnx): float16 weights, past/present/prefix KV and logits. The same generated model
// (with grouped-query attention too) scores the same by every path it supports: plain past as exported, converted to
// shared prefix, a native shared-prefix graph and the no-past graph; and close to its float32 twin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { renderRequest } from '../../src/engine/render';
import { TensorType, decodeModel } from '../../src/model-tools/onnx-proto';
import type { SystemOneRequest } from '../../src/protocol/types';
import { toHalfBits } from '../../tools/fixtures/generate-model';
import { convertDir, generate, maxAbsDiff, tempDir } from './fixtures';

const state = 'Shipment 12 left the warehouse late; the tracking page still says "label created" after four days.';
const questions: SystemOneRequest['questions'] = {
  late: { type: 'noul', instructions: 'Is the shipment late?' },
  where: { type: 'choice', criteria: { warehouse: null, transit: null, delivered: null } },
  mood: { type: 'score', criteria: ['calm', 'worried', 'angry'] },
};
const job = () => ({ model: 'm', state, rendered: renderRequest({ state, questions }) });

describe('float16 weights, KV and logits', () => {
  const tmp = tempDir('onnx-fp16-');
  const kinds = ['plain', 'converted', 'native', 'none', 'float32'] as const;
  const backends: Record<(typeof kinds)[number], OnnxBackend> = {} as never;

  beforeAll(async () => {
    const spec = { seed: 51, kvHeads: 2, float16: true, tokenizer: { singleTokenYesNo: false } };
    const plain = generate(tmp.path, 'plain', { ...spec, layout: 'plain-past' }).dir;
    const native = generate(tmp.path, 'native', { ...spec, layout: 'shared-prefix' }).dir;
    const none = generate(tmp.path, 'none', { ...spec, layout: 'no-past' }).dir;
    const float32 = generate(tmp.path, 'float32', { ...spec, float16: false, layout: 'plain-past' }).dir;
    const converted = join(tmp.path, 'converted');
    convertDir(plain, converted);
    const dirs = { plain, converted, native, none, float32 };
    for (const kind of kinds)
      backends[kind] = await createOnnxBackend({ models: [{ id: 'm', dir: dirs[kind] }], intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    tmp.remove();
  });

  it('rounds to half precision as IEEE 754 does', () => {
    expect([1, -2, 65504, 1e-8, 0.1, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2 ** -24, 1e6].map(toHalfBits)).toEqual([
      0x3c00, 0xc000, 0x7bff, 0, 0x2e66, 0x3c00, 0x3c02, 0x0001, 0x7c00,
    ]);
  });

  it('the graph is float16 at its inputs, outputs and weights, and the backend reads it so', () => {
    const model = decodeModel(readFileSync(join(tmp.path, 'plain', 'model.onnx')));
    const type = (name: string) =>
      [...model.graph.inputs, ...model.graph.outputs].find((v) => v.name === name)?.elemType;
    expect([type('past_key_values.0.key'), type('present.1.value'), type('logits')]).toEqual([
      TensorType.FLOAT16,
      TensorType.FLOAT16,
      TensorType.FLOAT16,
    ]);
    const big = model.graph.initializers.filter((t) => (t.rawData?.byteLength ?? 0) > 1024);
    expect(big.length).toBeGreaterThan(5);
    expect(big.every((t) => t.dataType === TensorType.FLOAT16)).toBe(true);
    const plain = backends.plain.loaded('m');
    expect(plain.graph).toMatchObject({ layout: 'plain-past', kvType: 'float16', logitsType: 'float16', heads: 2 });
    expect(plain.path).toMatch(/float16 KV; float16 logits/);
    expect(backends.converted.loaded('m').graph).toMatchObject({ layout: 'shared-prefix', kvType: 'float16' });
  });

  it('scores the same by every path (≤ 1e-4), and within half precision of the float32 twin', async () => {
    const base = await backends.plain.score(job());
    expect(base.scores.flatMap((s) => s.logprobs).every(Number.isFinite)).toBe(true);
    for (const kind of ['converted', 'native', 'none'] as const) {
      await backends[kind].clearCache();
      const result = await backends[kind].score(job());
      base.scores.forEach((s, i) =>
        expect(maxAbsDiff(result.scores[i].logprobs, s.logprobs), `${kind} ${i}`).toBeLessThanOrEqual(1e-4),
      );
      // And from the cached float16 state KV.
      const cached = await backends[kind].score(job());
      base.scores.forEach((s, i) =>
        expect(maxAbsDiff(cached.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-4),
      );
    }
    const twin = await backends.float32.score(job());
    const diff = Math.max(...base.scores.map((s, i) => maxAbsDiff(twin.scores[i].logprobs, s.logprobs)));
    expect(diff).toBeGreaterThan(0);
    expect(diff).toBeLessThan(0.05);
  });
});
