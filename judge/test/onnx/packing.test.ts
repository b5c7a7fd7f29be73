// Packing several questions into one batch row (layouts/packing.ts, own_attention_bias + logits_indices): the rows
// are packed first-fit decreasing at the width that needs the fewest slots, and a packed question scores exactly as in
// its own row: over the whole JevBench-240 corpus, for labels of several tokens finished from a packed row, and in a
// plain float16 grouped-query export made packable by `convert`, against that export served as it is.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { batchQuestions } from '../../src/backends/onnx/layouts/packing';
import { renderRequest } from '../../src/engine/render';
import type { SystemOneRequest } from '../../src/protocol/types';
import { loadCorpus } from '../helpers/repo';
import { convertDir, generate, maxAbsDiff, tempDir } from './fixtures';

const MODEL = 'judge-packing-test';

describe('batchQuestions', () => {
  const suffixes = [5, 2, 3, 1, 5, 4].map((n, q) => Array.from({ length: n }, (_, i) => q * 10 + i));

  it('widens the rows when that needs fewer token slots (rows × width), up to twice the longest', () => {
    const lengths = [10, 6, 6, 6];
    const batch = batchQuestions(
      lengths.map((n) => Array<number>(n).fill(1)),
      true,
    );
    // 10 wide: 4 rows (40 slots); 12: 10 | 6+6 | 6 (36); 16: 10+6 | 6+6 (32, the fewest).
    expect([batch.width, batch.rows.length]).toEqual([16, 2]);
    expect(
      batchQuestions(
        [
          [1, 1],
          [1, 1],
        ],
        true,
      ).width,
    ).toBe(2); // 2 × 2 or 1 × 4: a tie keeps the narrower
  });

  it('packs first-fit decreasing, each question once, in rows of the fewest slots', () => {
    const batch = batchQuestions(suffixes, true);
    expect(batch.width).toBe(5);
    expect(batch.rows).toHaveLength(4); // 5 | 5 | 4+1 | 3+2
    expect(batch.packed.map((lengths) => lengths.reduce((a, b) => a + b))).toEqual(batch.rows.map((r) => r.length));
    batch.places.forEach((place, q) => {
      expect(place.end - place.start + 1).toBe(suffixes[q].length);
      expect(place.end).toBeLessThan(batch.width);
      // Left-padded rows: the question's tokens sit at its columns minus the row's padding.
      const padding = batch.width - batch.rows[place.row].length;
      expect(batch.rows[place.row].slice(place.start - padding, place.end - padding + 1)).toEqual(suffixes[q]);
    });
    const taken = batch.places.map((p) => `${p.row}:${p.start}`);
    expect(new Set(taken).size).toBe(suffixes.length);
  });

  it('gives every question its own row when the graph cannot pack', () => {
    const batch = batchQuestions(suffixes, false);
    expect(batch.rows).toEqual(suffixes);
    expect(batch.packed).toEqual(suffixes.map((s) => [s.length]));
    expect(batch.places.map((p) => p.end)).toEqual(suffixes.map(() => 4));
  });
});

describe('packed rows score like rows of their own', () => {
  const tmp = tempDir('onnx-packing-');
  let packed: OnnxBackend;
  let unpacked: OnnxBackend;

  beforeAll(async () => {
    const trainingText = loadCorpus()
      .map((c) => `${typeof c.state === 'string' ? c.state : JSON.stringify(c.state)}\n${JSON.stringify(c.questions)}`)
      .join('\n')
      .slice(0, 100_000);
    // The same seed gives the same weights; only the packing inputs differ.
    const spec = {
      seed: 18,
      layout: 'shared-prefix' as const,
      maxPositions: 8192,
      hidden: 16,
      heads: 2,
      layers: 2,
      tokenizer: { trainingText, merges: 1000, singleTokenYesNo: false },
    };
    const withPacking = generate(tmp.path, 'packing', spec).dir;
    const without = generate(tmp.path, 'no-packing', { ...spec, packing: false }).dir;
    packed = await createOnnxBackend({ models: [{ id: MODEL, dir: withPacking }], intraOpNumThreads: 1 });
    unpacked = await createOnnxBackend({ models: [{ id: MODEL, dir: without }], intraOpNumThreads: 1 });
  });

  afterAll(async () => {
    await packed?.close();
    await unpacked?.close();
    tmp.remove();
  });

  const job = (state: SystemOneRequest['state'], questions: SystemOneRequest['questions']) => ({
    model: MODEL,
    state,
    rendered: renderRequest({ state, questions }),
  });

  it('the graphs say which can pack', () => {
    expect(packed.loaded(MODEL).graph.packing).toBe(true);
    expect(packed.loaded(MODEL).path).toMatch(/packing: short questions share a batch row/);
    expect(unpacked.loaded(MODEL).graph.packing).toBe(false);
    expect(unpacked.loaded(MODEL).graph.inputNames).toContain('logits_to_keep');
  });

  it('over the JevBench-240 corpus: the same probabilities (≤ 1e-4) with less padding', async () => {
    const corpus = loadCorpus();
    expect(corpus).toHaveLength(240);
    let worst = 0;
    let compared = 0;
    let casesPacked = 0;
    for (const c of corpus) {
      const request = job(c.state as SystemOneRequest['state'], c.questions as SystemOneRequest['questions']);
      const before = { packed: packed.stats, unpacked: unpacked.stats };
      const a = await packed.score(request);
      const b = await unpacked.score(request);
      const runs = (backend: OnnxBackend, was: typeof before.packed) => backend.stats.runs - was.runs;
      const padding = (backend: OnnxBackend, was: typeof before.packed) =>
        backend.stats.paddingTokens - was.paddingTokens;
      // The same runs (state, questions, label tokens): packing changes rows, not passes.
      expect(runs(packed, before.packed)).toBe(runs(unpacked, before.unpacked));
      expect(padding(packed, before.packed)).toBeLessThanOrEqual(padding(unpacked, before.unpacked));
      if (padding(packed, before.packed) < padding(unpacked, before.unpacked)) casesPacked++;
      expect(a.inputTokens).toBe(b.inputTokens);
      a.scores.forEach((s, i) => {
        worst = Math.max(worst, maxAbsDiff(s.logprobs.map(Math.exp), b.scores[i].logprobs.map(Math.exp)));
        compared++;
      });
    }
    expect(compared).toBeGreaterThan(2000);
    // Most cases mix question lengths enough for packing to save padding.
    expect(casesPacked).toBeGreaterThan(200);
    expect(worst).toBeLessThanOrEqual(1e-4);
  }, 600_000);

  it('finishes labels of several tokens from a packed row (≤ 1e-5 in log-probability)', async () => {
    const questions: SystemOneRequest['questions'] = {
      short: { type: 'noul', instructions: 'Late?' },
      long: {
        type: 'choice',
        instructions:
          'Which team should take the ticket about the failing nightly export of the billing data, given that the ' +
          'export job runs on the platform cluster, the data belongs to billing, and support owns the customer?',
        criteria: {
          'the billing team': null,
          'the platform team': null,
          'the support team': null,
          'nobody yet': null,
        },
      },
      mid: { type: 'score', instructions: 'How urgent is it?', criteria: ['low', 'medium', 'high'] },
      tiny: { type: 'noul', instructions: 'Refund?' },
    };
    const request = job(
      'Ticket 12: the nightly export fails since Monday; the customer wants it fixed by Friday.',
      questions,
    );
    const before = { packed: packed.stats, unpacked: unpacked.stats };
    const a = await packed.score(request);
    const b = await unpacked.score(request);
    expect(packed.stats.runs - before.packed.runs).toBe(3); // state, the packed questions, the labels' later tokens
    expect(packed.stats.paddingTokens - before.packed.paddingTokens).toBeLessThan(
      unpacked.stats.paddingTokens - before.unpacked.paddingTokens,
    );
    a.scores.forEach((s, i) => expect(maxAbsDiff(s.logprobs, b.scores[i].logprobs)).toBeLessThanOrEqual(1e-5));
  });

  it('a float16 GQA plain export, converted: packed rows score like the export served one question at a time', async () => {
    const spec = {
      seed: 19,
      kvHeads: 2,
      heads: 4,
      hidden: 32,
      float16: true,
      maxPositions: 8192,
      tokenizer: { trainingText: loadCorpus()[0].state as string },
    };
    const plain = generate(tmp.path, 'fp16-plain', { ...spec, layout: 'plain-past' }).dir;
    const converted = join(tmp.path, 'fp16-converted');
    const result = convertDir(plain, converted);
    expect(result.notes).toContain('logits_indices: the LM head runs only on the positions read');
    const asExported = await createOnnxBackend({ models: [{ id: MODEL, dir: plain }], intraOpNumThreads: 1 });
    const packable = await createOnnxBackend({ models: [{ id: MODEL, dir: converted }], intraOpNumThreads: 1 });
    try {
      expect(packable.loaded(MODEL).graph.packing).toBe(true);
      let worst = 0;
      let savedPadding = 0;
      for (const c of loadCorpus().slice(0, 24)) {
        const request = job(c.state as SystemOneRequest['state'], c.questions as SystemOneRequest['questions']);
        const lengths = request.rendered.questions.map((q) => packable.countTokens(MODEL, q.suffix));
        const unpackedPadding = lengths.reduce((sum, n) => sum + Math.max(...lengths) - n, 0);
        const before = packable.stats;
        const a = await packable.score(request);
        savedPadding += unpackedPadding - (packable.stats.paddingTokens - before.paddingTokens);
        const b = await asExported.score(request);
        a.scores.forEach((s, i) => {
          worst = Math.max(worst, maxAbsDiff(s.logprobs.map(Math.exp), b.scores[i].logprobs.map(Math.exp)));
        });
      }
      expect(savedPadding).toBeGreaterThan(0);
      expect(worst).toBeLessThanOrEqual(1e-4);
    } finally {
      await asExported.close();
      await packable.close();
    }
  }, 120_000);
});
