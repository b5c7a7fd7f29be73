// The ONNX codec on tensors far larger than a call's argument limit: packed float, int32 and int64 data and
// attribute lists of hundreds of thousands of values decode, and encode back byte for byte.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/model-tools/graph-builder';
import {
  TensorType,
  decodeModel,
  decodeTensor,
  encodeModel,
  encodeTensor,
  type Tensor,
} from '../../src/model-tools/onnx-proto';
import { ProtoWriter } from '../../src/model-tools/protobuf';

// Past ~150k values, `array.push(...values)` overflows the call stack (the limit this guards against).
const LARGE = 400_000;

describe('ONNX codec with large tensors', () => {
  it('decodes and re-encodes packed data of hundreds of thousands of values', () => {
    const floats = Array.from({ length: LARGE }, (_, i) => Math.fround(Math.sin(i) * 1000));
    const ints = Array.from({ length: LARGE }, (_, i) => (i % 2 ? -i : i));
    const longs = Array.from({ length: LARGE }, (_, i) => BigInt(i) * 1_000_003n - 7n);
    const tensor: Tensor = {
      name: 'big',
      dims: [LARGE],
      dataType: TensorType.FLOAT,
      floatData: floats,
      int32Data: ints,
      int64Data: longs,
    };
    const bytes = encodeTensor(tensor).finish();
    const decoded = decodeTensor(bytes);
    expect(decoded.floatData).toHaveLength(LARGE);
    expect(decoded.floatData).toEqual(floats);
    expect(decoded.int32Data).toEqual(ints);
    expect(decoded.int64Data).toEqual(longs);
    expect(Buffer.from(encodeTensor(decoded).finish()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('appends a packed field that is split over several occurrences, as protobuf allows', () => {
    const first = Array.from({ length: LARGE }, (_, i) => i);
    const second = Array.from({ length: 5 }, (_, i) => -i - 1);
    const w = new ProtoWriter().varint(2, TensorType.INT32).packedVarints(5, first).packedVarints(5, second);
    expect(decodeTensor(w.finish()).int32Data).toEqual([...first, ...second]);
  });

  it('round-trips a model whose initializer and attribute hold large float_data and ints, and ORT runs it', async () => {
    const g = new GraphBuilder();
    const x = g.input('x', TensorType.FLOAT, [LARGE]);
    const weights = Array.from({ length: LARGE }, (_, i) => (i % 7) - 3);
    g.initializers.push({ name: 'w', dims: [LARGE], dataType: TensorType.FLOAT, floatData: weights });
    g.op('Mul', [x, 'w'], {}, ['y']);
    g.output('y', TensorType.FLOAT, [LARGE]);
    g.op('Constant', [], { value_ints: Array.from({ length: LARGE }, (_, i) => i) }, ['ints']);
    g.output('ints', TensorType.INT64, [LARGE]);
    const bytes = encodeModel(g.model('large'));
    const decoded = decodeModel(bytes);
    expect(decoded.graph.initializers[0].floatData).toHaveLength(LARGE);
    expect(decoded.graph.nodes[1].attributes[0].ints).toHaveLength(LARGE);
    expect(Buffer.from(encodeModel(decoded)).equals(Buffer.from(bytes))).toBe(true);

    const session = await ort.InferenceSession.create(encodeModel(decoded));
    try {
      const out = await session.run({ x: new ort.Tensor('float32', new Float32Array(LARGE).fill(2), [LARGE]) });
      const y = out.y.data as Float32Array;
      expect(y[LARGE - 1]).toBe(2 * weights[LARGE - 1]);
      expect(y[3]).toBe(0);
      expect((out.ints.data as BigInt64Array)[LARGE - 1]).toBe(BigInt(LARGE - 1));
    } finally {
      await session.release();
    }
  });
});
