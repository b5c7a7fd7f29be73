// Merged decoders as Optimum writes them (decoder_model_merged.onnx: use_cache_branch + one If choosing the with-past
// or the no-past graph): served by the plain-past path, converted to shared prefix from the with-past branch, and
// both `serve` and `convert` say which path the model gets and why.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { main } from '../../src/cli/main';
import { startupNotes } from '../../src/cli/startup-notes';
import type { JudgeConfig } from '../../src/config';
import { renderRequest } from '../../src/engine/render';
import { ConvertError, convertToSharedPrefix } from '../../src/model-tools/convert-shared-prefix';
import { decodeModel, encodeModel } from '../../src/model-tools/onnx-proto';
import type { JudgeServer } from '../../src/server';
import type { SystemOneRequest } from '../../src/protocol/types';
import { buildMergedTinyLm } from '../../tools/fixtures/generate-model';
import { captureOutput, generate, maxAbsDiff, tempDir } from './fixtures';

const state =
  'Invoice 93 was paid twice on the 3rd; the customer wants the second payment back and is polite about it.';
const questions: SystemOneRequest['questions'] = {
  twice: { type: 'noul', instructions: 'Was something paid twice?' },
  wants: { type: 'choice', criteria: { refund: null, discount: null, nothing: null } },
};
const job = () => ({ model: 'm', state, rendered: renderRequest({ state, questions }) });

describe('merged decoders (use_cache_branch, If)', () => {
  const tmp = tempDir('onnx-merged-');
  const backends: Record<'plain' | 'merged' | 'converted', OnnxBackend> = {} as never;
  let convertOut = '';

  beforeAll(async () => {
    const spec = { seed: 41, layout: 'plain-past' as const, kvHeads: 2, tokenizer: { singleTokenYesNo: false } };
    const plain = generate(tmp.path, 'plain', spec).dir;
    const merged = generate(tmp.path, 'merged', { ...spec, merged: true }).dir;
    const converted = join(tmp.path, 'converted');
    const io = captureOutput();
    expect(await main(['convert', '--in', merged, '--out', converted])).toBe(0);
    convertOut = io.out();
    vi.restoreAllMocks();
    const dirs = { plain, merged, converted };
    for (const kind of ['plain', 'merged', 'converted'] as const)
      backends[kind] = await createOnnxBackend({ models: [{ id: 'm', dir: dirs[kind] }], intraOpNumThreads: 1 });
  });

  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    for (const b of Object.values(backends)) await b?.close();
    tmp.remove();
  });

  it('the generated graph is a merged decoder: one If on use_cache_branch, its branches as subgraphs', () => {
    const model = decodeModel(readFileSync(join(tmp.path, 'merged', 'model.onnx')));
    expect(model.graph.nodes.map((n) => n.opType)).toEqual(['If']);
    expect(model.graph.inputs.map((i) => i.name)).toContain('use_cache_branch');
    const branches = model.graph.nodes[0].attributes.map((a) => [a.name, a.g?.nodes.length ?? 0]);
    expect(branches.map(([name]) => name)).toEqual(['then_branch', 'else_branch']);
    expect(branches.every(([, count]) => Number(count) > 10)).toBe(true);
    // Subgraphs survive the codec byte for byte.
    const bytes = readFileSync(join(tmp.path, 'merged', 'model.onnx'));
    expect(Buffer.from(encodeModel(decodeModel(bytes))).equals(bytes)).toBe(true);
  });

  it('is served by the plain-past path, scoring like the with-past export (≤ 1e-5), and serve says why', async () => {
    const merged = backends.merged.loaded('m');
    expect(merged.layout).toBe('plain-past');
    expect(merged.path).toMatch(/^plain-past path: the graph takes past_key_values\.\* but no prefix_key_values/);
    expect(merged.path).toMatch(/merged decoder: use_cache_branch is fed true/);
    expect(merged.path).toMatch(/grouped-query attention: 2 KV heads for 4 attention heads/);
    const plain = await backends.plain.score(job());
    const served = await backends.merged.score(job());
    plain.scores.forEach((s, i) => expect(maxAbsDiff(served.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5));

    const server = {
      playground: { enabled: false },
      console: { on: false, reason: 'no password' },
      engine: { backend: backends.merged },
    } as unknown as JudgeServer;
    expect(startupNotes(server, {} as JudgeConfig)).toEqual(['console off (no password)', `model m: ${merged.path}`]);
  });

  it('converts from its with-past branch to shared prefix, and convert says what it did', async () => {
    expect(convertOut).toMatch(/converted 2 layers to the shared-prefix layout/);
    expect(convertOut).toMatch(/merged decoder: kept its use_cache_branch \(with past\) branch/);
    expect(convertOut).toMatch(/grouped-query attention: repeat_kv \(Expand\/Reshape\) replayed on the prefix/);
    expect(convertOut).toMatch(/served, it gets the shared-prefix path: .*one batch/);
    const converted = backends.converted.loaded('m');
    expect(converted.layout).toBe('shared-prefix');
    expect(converted.graph.inputNames).not.toContain('use_cache_branch');
    expect(converted.path).toMatch(/logits_indices: the LM head runs only on the positions read/);
    expect(converted.path).toMatch(/packing: short questions share a batch row/);
    const plain = await backends.plain.score(job());
    const result = await backends.converted.score(job());
    plain.scores.forEach((s, i) => expect(maxAbsDiff(result.scores[i].logprobs, s.logprobs)).toBeLessThanOrEqual(1e-5));
  });

  it('refuses an If that is not a merged decoder, and says which path the model gets unconverted', async () => {
    const spec = {
      seed: 3,
      layout: 'plain-past' as const,
      vocabSize: 300,
      hidden: 16,
      layers: 1,
      heads: 2,
      maxPositions: 64,
    };
    const twoBranchesWithPast = buildMergedTinyLm(spec);
    const ifNode = twoBranchesWithPast.graph.nodes[0];
    const [thenBranch] = ifNode.attributes;
    ifNode.attributes[1] = { ...ifNode.attributes[1], g: thenBranch.g };
    expect(() => convertToSharedPrefix(twoBranchesWithPast)).toThrow(
      /If node "optimum::if" on use_cache_branch: expected exactly one branch that reads past_key_values/,
    );

    const dir = generate(tmp.path, 'other-if', { seed: 5, layout: 'plain-past', merged: true }).dir;
    const model = decodeModel(readFileSync(join(dir, 'model.onnx')));
    model.graph.nodes[0].inputs[0] = 'some_flag';
    model.graph.inputs.push({ name: 'some_flag', elemType: 9, shape: [1] });
    expect(() => convertToSharedPrefix(model)).toThrow(ConvertError);
    expect(() => convertToSharedPrefix(model)).toThrow(
      /If node "optimum::if" holds a subgraph that is not a merged decoder/,
    );
    writeFileSync(join(dir, 'model.onnx'), encodeModel(model));
    const io = captureOutput();
    expect(await main(['convert', '--in', dir, '--out', join(tmp.path, 'x')])).toBe(1);
    expect(io.err()).toMatch(/cannot convert .*If node "optimum::if" holds a subgraph/);
    expect(io.err()).toMatch(/it cannot be served as it is either: the graph has an input "some_flag"/);
  });
});
