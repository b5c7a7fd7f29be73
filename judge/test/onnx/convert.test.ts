// The ONNX protobuf round trip and the shared-prefix converter: a converted plain-past export scores exactly like
// the original (and like a natively generated shared-prefix graph); graphs it cannot rewrite are refused clearly.
import { readFileSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRequest } from '../../src/engine/render';
import type { SystemOneRequest } from '../../src/protocol/types';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { decodeModel, encodeModel } from '../../src/model-tools/onnx-proto';
import { ConvertError, convertToSharedPrefix } from '../../src/model-tools/convert-shared-prefix';
import { buildTinyLm } from '../../tools/fixtures/generate-model';
import { generate, maxAbsDiff, tempDir } from './fixtures';

const state = 'Order 4411: two chairs arrived broken. The customer wants a replacement, not a refund, before the 12th.';
const questions: SystemOneRequest['questions'] = {
  broken: { type: 'noul', instructions: 'Did something arrive damaged?' },
  wants: { type: 'choice', criteria: { refund: null, replacement: null, nothing: null } },
  anger: { type: 'score', criteria: ['calm', 'annoyed', 'angry'] },
};
const job = (model: string) => ({ model, state, rendered: renderRequest({ state, questions }) });

describe('ONNX protobuf', () => {
  it('decodes and re-encodes a model byte for byte', () => {
    const spec = {
      seed: 5,
      layout: 'plain-past' as const,
      vocabSize: 300,
      hidden: 16,
      layers: 1,
      heads: 2,
      maxPositions: 64,
    };
    const bytes = encodeModel(buildTinyLm(spec));
    const decoded = decodeModel(bytes);
    expect(decoded.graph.inputs.map((i) => i.name)).toContain('past_key_values.0.key');
    expect(decoded.graph.inputs.find((i) => i.name === 'past_key_values.0.key')?.shape).toEqual([
      'batch_size',
      2,
      'past_sequence_length',
      8,
    ]);
    expect(Buffer.from(encodeModel(decoded)).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe('convert to the shared-prefix layout', () => {
  const tmp = tempDir('onnx-convert-');
  const backends: Record<'plain' | 'converted' | 'native', OnnxBackend> = {} as never;

  beforeAll(async () => {
    const plain = generate(tmp.path, 'plain', { seed: 21, layout: 'plain-past' }).dir;
    const native = generate(tmp.path, 'native', { seed: 21, layout: 'shared-prefix' }).dir;
    const converted = join(tmp.path, 'converted');
    mkdirSync(converted);
    const { model, layers } = convertToSharedPrefix(decodeModel(readFileSync(join(plain, 'model.onnx'))));
    expect(layers).toBe(2);
    writeFileSync(join(converted, 'model.onnx'), encodeModel(model));
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json'])
      copyFileSync(join(plain, f), join(converted, f));
    const dirs = { plain, converted, native };
    for (const kind of ['plain', 'converted', 'native'] as const) {
      backends[kind] = await createOnnxBackend({ models: [{ id: 'm', dir: dirs[kind] }], intraOpNumThreads: 1 });
    }
  });

  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    tmp.remove();
  });

  it('scores like the original graph and like a native shared-prefix graph (≤ 1e-5)', async () => {
    expect(backends.converted.loaded('m').layout).toBe('shared-prefix');
    expect(backends.converted.loaded('m').graph.inputNames).toContain('logits_to_keep');
    const original = await backends.plain.score(job('m'));
    const runs = backends.converted.stats.runs;
    const converted = await backends.converted.score(job('m'));
    expect(backends.converted.stats.runs - runs).toBe(2); // state, then one batch
    const native = await backends.native.score(job('m'));
    original.scores.forEach((s, i) => {
      expect(maxAbsDiff(converted.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5);
      expect(maxAbsDiff(native.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5);
    });
  });

  it('refuses graphs it cannot rewrite, saying why', () => {
    const spec = { seed: 5, vocabSize: 300, hidden: 16, layers: 1, heads: 2, maxPositions: 64 };
    const fused = buildTinyLm({ ...spec, layout: 'plain-past' });
    const softmax = fused.graph.nodes.find((n) => n.opType === 'Softmax')!;
    softmax.domain = 'com.microsoft';
    softmax.opType = 'Attention';
    expect(() => convertToSharedPrefix(fused)).toThrow(ConvertError);
    expect(() => convertToSharedPrefix(fused)).toThrow(/com\.microsoft\.Attention .*contrib op/);

    expect(() => convertToSharedPrefix(buildTinyLm({ ...spec, layout: 'no-past' }))).toThrow(/no past_key_values/);
    expect(() => convertToSharedPrefix(buildTinyLm({ ...spec, layout: 'shared-prefix' }))).toThrow(
      /already in the shared-prefix layout/,
    );

    const expanded = buildTinyLm({ ...spec, layout: 'plain-past' });
    const transpose = expanded.graph.nodes.find((n) => n.opType === 'Transpose' && n.inputs[0] === 'present.0.key')!;
    transpose.opType = 'Expand';
    expect(() => convertToSharedPrefix(expanded)).toThrow(
      /cannot find the one attention MatMul that reads present\.0\.key \(it goes on through Expand\)/,
    );
  });
});
