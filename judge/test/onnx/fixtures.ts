// Test fixtures for the ONNX backend: generated model directories in a temp folder, and an independent
// reference scorer that recomputes every label from scratch (full sequence, no past, no batching).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { vi } from 'vitest';
import { convertToSharedPrefix, type ConvertResult } from '../../src/model-tools/convert-shared-prefix';
import { decodeModel, encodeModel } from '../../src/model-tools/onnx-proto';
import { generateTinyModelDir, type GenerateOptions } from '../../tools/fixtures/generate-model';

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function generate(root: string, name: string, options: Omit<GenerateOptions, 'dir'>) {
  return generateTinyModelDir({ ...options, dir: join(root, name) });
}

/** `plain`'s model converted to shared prefix (in process) into the new directory `out`, with its tokenizer and config. */
export function convertDir(plain: string, out: string): ConvertResult {
  mkdirSync(out);
  const result = convertToSharedPrefix(decodeModel(readFileSync(join(plain, 'model.onnx'))));
  writeFileSync(join(out, 'model.onnx'), encodeModel(result.model));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json'])
    copyFileSync(join(plain, f), join(out, f));
  return result;
}

/** Captures what the CLI writes to stdout and stderr (until vi.restoreAllMocks()). */
export function captureOutput(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
  return { out: () => out, err: () => err };
}

function i64(values: number[]): ort.Tensor {
  return new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    [1, values.length],
  );
}

/** Full-vocabulary log-softmax of one logits row, in float64. */
export function logSoftmaxAt(logits: ort.Tensor, position: number): Float64Array {
  const [, seq, vocab] = logits.dims;
  void seq;
  const data = logits.data as Float32Array;
  const row = data.subarray(position * vocab, (position + 1) * vocab);
  let max = -Infinity;
  for (const v of row) max = Math.max(max, v);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  const logZ = max + Math.log(sum);
  return Float64Array.from(row, (v) => v - logZ);
}

/**
 * The feeds that ask a graph for the logits of every position of a batch-1 run of `length` tokens, with no packing:
 * logits_to_keep 0, or logits_indices 0…length-1 (logits [1, length, V] either way), and a zero own_attention_bias.
 */
export function everyPositionFeeds(session: ort.InferenceSession, length: number): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  if (session.inputNames.includes('logits_to_keep'))
    feeds.logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(0n), []);
  if (session.inputNames.includes('logits_indices'))
    feeds.logits_indices = new ort.Tensor(
      'int64',
      BigInt64Array.from({ length }, (_, i) => BigInt(i)),
      [length],
    );
  if (session.inputNames.includes('own_attention_bias'))
    feeds.own_attention_bias = new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]);
  return feeds;
}

/**
 * Runs a whole token sequence through a model with an empty past (any layout): the logits of every position.
 */
export async function fullLogits(
  session: ort.InferenceSession,
  ids: number[],
  layers: number,
  heads: number,
  headDim: number,
): Promise<ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = { input_ids: i64(ids) };
  if (session.inputNames.includes('attention_mask')) feeds.attention_mask = i64(ids.map(() => 1));
  if (session.inputNames.includes('position_ids')) feeds.position_ids = i64(ids.map((_, i) => i));
  Object.assign(feeds, everyPositionFeeds(session, ids.length));
  const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, headDim]);
  for (let l = 0; l < layers; l++) {
    for (const kv of ['key', 'value']) {
      if (session.inputNames.includes(`past_key_values.${l}.${kv}`)) feeds[`past_key_values.${l}.${kv}`] = empty();
      if (session.inputNames.includes(`prefix_key_values.${l}.${kv}`)) feeds[`prefix_key_values.${l}.${kv}`] = empty();
    }
  }
  const out = await session.run(feeds, ['logits']);
  return out.logits;
}

/** Reference: log P(label tokens | context), recomputed from scratch for each label. */
export async function referenceLabelLogprobs(
  session: ort.InferenceSession,
  context: number[],
  labels: number[][],
  dims: { layers: number; heads: number; headDim: number },
): Promise<number[]> {
  const result: number[] = [];
  for (const label of labels) {
    const ids = [...context, ...label.slice(0, -1)];
    const logits = await fullLogits(session, ids, dims.layers, dims.heads, dims.headDim);
    let sum = 0;
    label.forEach((token, t) => (sum += logSoftmaxAt(logits, context.length - 1 + t)[token]));
    result.push(sum);
  }
  return result;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} ≠ ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
