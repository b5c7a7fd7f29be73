// The ONNX protobuf round trip and the shared-prefix converter: a converted plain-past export scores exactly like
// the original (and like a natively generated shared-prefix graph); graphs it cannot rewrite are refused clearly;
// weights in an external data file are served and converted.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main';
import { renderRequest } from '../../src/engine/render';
import type { SystemOneRequest } from '../../src/protocol/types';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { decodeModel, encodeModel, externalDataFiles } from '../../src/model-tools/onnx-proto';
import { ConvertError, convertToSharedPrefix } from '../../src/model-tools/convert-shared-prefix';
import { buildTinyLm } from '../../tools/fixtures/generate-model';
import { convertDir, generate, maxAbsDiff, tempDir } from './fixtures';

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
    expect(convertDir(plain, converted).layers).toBe(2);
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
    expect(backends.converted.loaded('m').graph.inputNames).toEqual(
      expect.arrayContaining(['logits_indices', 'own_attention_bias']),
    );
    expect(backends.converted.loaded('m').graph.packing).toBe(true);
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
    // Contrib ops that only multiply weights (MatMulNBits) are kept; one in the attention itself is still refused.
    softmax.opType = 'MatMulNBits';
    expect(() => convertToSharedPrefix(fused)).toThrow(
      /unexpected com\.microsoft\.MatMulNBits node .* between the scores MatMul and Softmax/,
    );

    expect(() => convertToSharedPrefix(buildTinyLm({ ...spec, layout: 'no-past' }))).toThrow(/no past_key_values/);
    expect(() => convertToSharedPrefix(buildTinyLm({ ...spec, layout: 'shared-prefix' }))).toThrow(
      /already in the shared-prefix layout/,
    );

    const expanded = buildTinyLm({ ...spec, layout: 'plain-past' });
    const transpose = expanded.graph.nodes.find((n) => n.opType === 'Transpose' && n.inputs[0] === 'present.0.key')!;
    transpose.opType = 'Tile';
    expect(() => convertToSharedPrefix(expanded)).toThrow(
      /cannot find the one attention MatMul that reads present\.0\.key \(it goes on through Tile\)/,
    );
  });
});

describe('external data (model.onnx + model.onnx_data)', () => {
  const tmp = tempDir('onnx-external-');
  afterAll(() => tmp.remove());

  it('is served as it is, converted by the CLI with its data copied, and scores like the inline model', async () => {
    const inline = generate(tmp.path, 'inline', { seed: 23, layout: 'plain-past', kvHeads: 2 }).dir;
    const external = generate(tmp.path, 'external', {
      seed: 23,
      layout: 'plain-past',
      kvHeads: 2,
      externalData: 'model.onnx_data',
    }).dir;
    const graphBytes = statSync(join(external, 'model.onnx')).size;
    expect(graphBytes).toBeLessThan(statSync(join(external, 'model.onnx_data')).size);
    expect(graphBytes).toBeLessThan(statSync(join(inline, 'model.onnx')).size / 4);
    expect(externalDataFiles(decodeModel(readFileSync(join(external, 'model.onnx'))))).toEqual(['model.onnx_data']);

    const converted = join(tmp.path, 'converted');
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['convert', '--in', external, '--out', converted])).toBe(0);
    } finally {
      out.mockRestore();
    }
    expect(
      readFileSync(join(converted, 'model.onnx_data')).equals(readFileSync(join(external, 'model.onnx_data'))),
    ).toBe(true);
    expect(externalDataFiles(decodeModel(readFileSync(join(converted, 'model.onnx'))))).toEqual(['model.onnx_data']);

    const dirs = { inline, external, converted };
    const scores: Record<string, Awaited<ReturnType<OnnxBackend['score']>>> = {};
    for (const [kind, dir] of Object.entries(dirs)) {
      const backend = await createOnnxBackend({ models: [{ id: 'm', dir }], intraOpNumThreads: 1 });
      try {
        expect(backend.loaded('m').layout).toBe(kind === 'converted' ? 'shared-prefix' : 'plain-past');
        scores[kind] = await backend.score(job('m'));
      } finally {
        await backend.close();
      }
    }
    scores.inline.scores.forEach((s, i) => {
      expect(maxAbsDiff(scores.external.scores[i].logprobs, s.logprobs)).toBe(0);
      expect(maxAbsDiff(scores.converted.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5);
    });
  });

  it('convert names a missing external data file', async () => {
    const dir = generate(tmp.path, 'lost', { seed: 24, layout: 'plain-past', externalData: 'weights.bin' }).dir;
    rmSync(join(dir, 'weights.bin'));
    let err = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
    try {
      expect(await main(['convert', '--in', dir, '--out', join(tmp.path, 'lost-out')])).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
    expect(err).toMatch(/model\.onnx keeps its weights in weights\.bin, which is not in .*lost/);
  });

  it("convert refuses what config.json says it cannot keep exact, naming the field; Qwen2.5's unused window converts", async () => {
    const withConfig = (name: string, seed: number, fields: Record<string, unknown>) => {
      const dir = generate(tmp.path, name, { seed, layout: 'plain-past' }).dir;
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, ...fields }));
      return dir;
    };
    const convertCli = async (dir: string) => {
      let err = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        return { code: await main(['convert', '--in', dir, '--out', `${dir}-out`]), err };
      } finally {
        vi.restoreAllMocks();
      }
    };
    const mistral = await convertCli(withConfig('mistral-window', 31, { sliding_window: 16 }));
    expect(mistral.code).toBe(1);
    expect(mistral.err).toMatch(/config\.json sliding_window: every layer attends within a window of 16 tokens; /);
    expect(mistral.err).toMatch(/served as it is, it gets the /);
    const capped = await convertCli(withConfig('soft-capped', 32, { attn_logit_softcapping: 50 }));
    expect(capped.code).toBe(1);
    expect(capped.err).toMatch(/config\.json attn_logit_softcapping: the model soft-caps its attention scores at 50/);
    const qwen = await convertCli(
      withConfig('qwen-window', 33, { sliding_window: 16, use_sliding_window: false, max_window_layers: 1 }),
    );
    expect(qwen).toEqual({ code: 0, err: '' });
  });
});
