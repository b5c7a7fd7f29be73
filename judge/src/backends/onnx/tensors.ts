// Tensor helpers for the decoder's inputs and outputs: int64 feeds, KV slicing and row gathering.
import { endianness } from 'node:os';
import * as ort from 'onnxruntime-node';

/** Per layer: the key and value tensors [B, H, T, D]. */
export type KvTensors = { key: ort.Tensor; value: ort.Tensor }[];

type KvData = Float32Array | Uint16Array;

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * An int64 tensor of whole numbers. Values within ±2^31 (ids, positions, masks) are written through a 32-bit view,
 * which spares one BigInt per element.
 */
export function int64Tensor(values: readonly number[], dims: number[]): ort.Tensor {
  const data = new BigInt64Array(values.length);
  const halves = new Int32Array(data.buffer);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (LITTLE_ENDIAN && v === (v | 0)) {
      halves[2 * i] = v;
      halves[2 * i + 1] = v < 0 ? -1 : 0;
    } else data[i] = BigInt(v);
  }
  return new ort.Tensor('int64', data, dims);
}

export function emptyKv(
  layers: number,
  batch: number,
  heads: number,
  headDim: number,
  type: 'float32' | 'float16',
): KvTensors {
  const make = (): ort.Tensor =>
    new ort.Tensor(type, type === 'float16' ? new Uint16Array(0) : new Float32Array(0), [batch, heads, 0, headDim]);
  return Array.from({ length: layers }, () => ({ key: make(), value: make() }));
}

function allocLike(t: ort.Tensor, size: number): KvData {
  return t.type === 'float16' ? new Uint16Array(size) : new Float32Array(size);
}

/** Copies positions [0, length) of a [1, H, T, D] tensor along the sequence axis. */
function sliceSequence(t: ort.Tensor, length: number): ort.Tensor {
  const [batch, heads, seq, dim] = t.dims;
  const src = t.data as KvData;
  const out = allocLike(t, batch * heads * length * dim);
  for (let bh = 0; bh < batch * heads; bh++) {
    out.set(src.subarray(bh * seq * dim, bh * seq * dim + length * dim), bh * length * dim);
  }
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [batch, heads, length, dim]);
}

export function sliceKv(kv: KvTensors, length: number): KvTensors {
  return kv.map((layer) => ({ key: sliceSequence(layer.key, length), value: sliceSequence(layer.value, length) }));
}

/** Builds a [rows.length, H, T, D] tensor from the given batch rows of a [B, H, T, D] tensor. */
function gatherRows(t: ort.Tensor, rows: number[]): ort.Tensor {
  const [, heads, seq, dim] = t.dims;
  const block = heads * seq * dim;
  const src = t.data as KvData;
  const out = allocLike(t, rows.length * block);
  rows.forEach((row, i) => out.set(src.subarray(row * block, (row + 1) * block), i * block));
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [rows.length, heads, seq, dim]);
}

export function gatherKvRows(kv: KvTensors, rows: number[]): KvTensors {
  return kv.map((layer) => ({ key: gatherRows(layer.key, rows), value: gatherRows(layer.value, rows) }));
}

export function kvBytes(kv: KvTensors): number {
  return kv.reduce(
    (sum, layer) => sum + (layer.key.data as KvData).byteLength + (layer.value.data as KvData).byteLength,
    0,
  );
}
