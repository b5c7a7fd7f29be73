// The full-vocabulary normaliser (ONNX Runtime's LogSoftmax in a helper graph) against a float64 log-softmax in JS:
// whole tensors and picked rows, float32 and float16 logits, label ratios kept exact, and the -inf fallback.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VocabLogSoftmax } from '../../src/backends/onnx/log-softmax';
import { seededRandom } from '../../tools/fixtures/generate-model';

const VOCAB = 5000;

function randomLogits(batch: number, seq: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  return Float32Array.from({ length: batch * seq * VOCAB }, () => (rand() - 0.5) * 16);
}

/** float64 log-softmax of one row, read at the given ids. */
function exact(values: ArrayLike<number>, offset: number, ids: number[]): number[] {
  let max = -Infinity;
  for (let i = 0; i < VOCAB; i++) max = Math.max(max, values[offset + i]);
  let sum = 0;
  for (let i = 0; i < VOCAB; i++) sum += Math.exp(values[offset + i] - max);
  return ids.map((id) => values[offset + id] - max - Math.log(sum));
}

function floatToHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = (bits >>> 13) & 0x3ff;
  if (exp <= 0) return sign; // the test's values never get this small
  return sign | (exp << 10) | mantissa;
}

function halfToFloat(h: number): number {
  const exp = (h >> 10) & 0x1f;
  return (h & 0x8000 ? -1 : 1) * 2 ** (exp - 15) * (1 + (h & 0x3ff) / 1024);
}

describe('VocabLogSoftmax', () => {
  let f32: VocabLogSoftmax;
  let f16: VocabLogSoftmax;

  beforeAll(async () => {
    f32 = await VocabLogSoftmax.create('float32', 1);
    f16 = await VocabLogSoftmax.create('float16', 1);
  });

  afterAll(async () => {
    await f32?.release();
    await f16?.release();
  });

  it('matches a float64 log-softmax on a whole [B, 1, V] tensor (≤ 1e-5) and keeps label ratios exact', async () => {
    const data = randomLogits(6, 1, 1);
    const logits = new ort.Tensor('float32', data, [6, 1, VOCAB]);
    const picks = Array.from({ length: 6 }, (_, row) => ({ row, position: 0, tokenIds: [row * 7, 4999, 17 + row] }));
    const got = await f32.logprobs(logits, picks);
    picks.forEach((p, i) => {
      const want = exact(data, p.row * VOCAB, p.tokenIds);
      want.forEach((w, j) => expect(Math.abs(got[i][j] - w)).toBeLessThanOrEqual(1e-5));
      // Differences between tokens of one row are the raw logit differences (float64 rounding only).
      expect(got[i][1] - got[i][0]).toBeCloseTo(data[p.row * VOCAB + 4999] - data[p.row * VOCAB + p.row * 7], 12);
    });
  });

  it('reads picked positions of a [B, T, V] tensor, in the order asked', async () => {
    const data = randomLogits(3, 4, 2);
    const logits = new ort.Tensor('float32', data, [3, 4, VOCAB]);
    const picks = [
      { row: 2, position: 3, tokenIds: [5] },
      { row: 0, position: 1, tokenIds: [9, 10] },
      { row: 2, position: 0, tokenIds: [4000] },
    ];
    const got = await f32.logprobs(logits, picks);
    picks.forEach((p, i) => {
      const want = exact(data, (p.row * 4 + p.position) * VOCAB, p.tokenIds);
      want.forEach((w, j) => expect(Math.abs(got[i][j] - w)).toBeLessThanOrEqual(1e-5));
    });
  });

  it('normalises float16 logits', async () => {
    const data = randomLogits(2, 1, 3);
    const halves = Uint16Array.from(data, floatToHalf);
    const asRead = Float64Array.from(halves, halfToFloat);
    const got = await f16.logprobs(new ort.Tensor('float16', halves, [2, 1, VOCAB]), [
      { row: 0, position: 0, tokenIds: [1, 2] },
      { row: 1, position: 0, tokenIds: [3] },
    ]);
    expect(Math.abs(got[0][0] - exact(asRead, 0, [1])[0])).toBeLessThanOrEqual(1e-5);
    expect(Math.abs(got[0][1] - exact(asRead, 0, [2])[0])).toBeLessThanOrEqual(1e-5);
    expect(Math.abs(got[1][0] - exact(asRead, VOCAB, [3])[0])).toBeLessThanOrEqual(1e-5);
  });

  it('falls back to a float64 normaliser when the reference token has a -inf logit', async () => {
    const data = randomLogits(1, 1, 4);
    data[11] = -Infinity;
    const [got] = await f32.logprobs(new ort.Tensor('float32', data, [1, 1, VOCAB]), [
      { row: 0, position: 0, tokenIds: [11, 12] },
    ]);
    expect(got[0]).toBe(-Infinity);
    expect(Math.abs(got[1] - exact(data, 0, [12])[0])).toBeLessThanOrEqual(1e-9);
  });

  it('refuses token ids and positions outside the logits, naming them', async () => {
    const logits = new ort.Tensor('float32', randomLogits(1, 1, 5), [1, 1, VOCAB]);
    await expect(f32.logprobs(logits, [{ row: 0, position: 0, tokenIds: [VOCAB] }])).rejects.toThrow(
      `token id ${VOCAB} is outside the model's ${VOCAB} logits`,
    );
    await expect(f32.logprobs(logits, [{ row: 0, position: 1, tokenIds: [0] }])).rejects.toThrow(
      'logits position 1 of row 0 is outside',
    );
  });
});
