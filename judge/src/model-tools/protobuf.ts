// A minimal protobuf wire-format reader and writer: just enough for ONNX's ModelProto.

export const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  Fixed32 = 5,
}

export interface RawField {
  field: number;
  wireType: WireType;
  /** Varint fields: the value. */
  varint?: bigint;
  /** Length-delimited and fixed fields: the payload (a view into the source, not a copy). */
  bytes?: Uint8Array;
  /** The whole field, tag included, for re-emitting fields a decoder does not know. */
  encoded: Uint8Array;
}

export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

/** Splits one message's bytes into its fields, in order. */
export function readFields(buf: Uint8Array): RawField[] {
  const fields: RawField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError('varint longer than 10 bytes');
    }
  };
  while (pos < buf.length) {
    const start = pos;
    const tag = Number(varint());
    const field = tag >>> 3;
    const wireType = (tag & 7) as WireType;
    let out: RawField;
    switch (wireType) {
      case WireType.Varint: {
        const v = varint();
        out = { field, wireType, varint: v, encoded: buf.subarray(start, pos) };
        break;
      }
      case WireType.Fixed64:
      case WireType.Fixed32: {
        const n = wireType === WireType.Fixed64 ? 8 : 4;
        if (pos + n > buf.length) throw new ProtobufError('truncated fixed field');
        out = { field, wireType, bytes: buf.subarray(pos, pos + n), encoded: buf.subarray(start, pos + n) };
        pos += n;
        break;
      }
      case WireType.LengthDelimited: {
        const len = Number(varint());
        if (pos + len > buf.length) throw new ProtobufError(`field ${field} runs past the end of its message`);
        out = { field, wireType, bytes: buf.subarray(pos, pos + len), encoded: buf.subarray(start, pos + len) };
        pos += len;
        break;
      }
      default:
        throw new ProtobufError(`unsupported wire type ${wireType as number} in field ${field}`);
    }
    fields.push(out);
  }
  return fields;
}

/** Reads a varint field as a signed 64-bit value (a JS number when it fits, else a bigint). */
export function int64Of(f: RawField): number {
  const v = BigInt.asIntN(64, f.varint ?? 0n);
  return Number(v);
}

export function bigInt64Of(f: RawField): bigint {
  return BigInt.asIntN(64, f.varint ?? 0n);
}

export function stringOf(f: RawField): string {
  return new TextDecoder().decode(f.bytes);
}

/** Packed repeated varints (or a single unpacked one). */
export function packedVarints(f: RawField): bigint[] {
  if (f.wireType === WireType.Varint) return [BigInt.asIntN(64, f.varint ?? 0n)];
  return readPackedVarints(f.bytes ?? new Uint8Array());
}

function readPackedVarints(buf: Uint8Array): bigint[] {
  const out: bigint[] = [];
  let pos = 0;
  while (pos < buf.length) {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufError('truncated packed varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
    }
    out.push(BigInt.asIntN(64, result));
  }
  return out;
}

/** Packed repeated floats (or a single unpacked one). */
export function packedFloats(f: RawField): number[] {
  const b = f.bytes ?? new Uint8Array();
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: number[] = [];
  for (let i = 0; i + 4 <= b.length; i += 4) out.push(view.getFloat32(i, true));
  return out;
}

/**
 * Appends every value (mapped) to `target` one by one: `target.push(...values)` passes each value as an argument and
 * overflows the call stack past ~150k values, which a weight tensor easily has.
 */
export function appendAll<T, U = T>(target: U[], values: readonly T[], map?: (value: T) => U): U[] {
  for (const value of values) target.push(map ? map(value) : (value as unknown as U));
  return target;
}

/** Writes `value` as a varint (two's complement for negatives, as int64) at `pos`; returns the position after it. */
function writeVarint(out: Uint8Array, pos: number, value: bigint | number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    // Small non-negative numbers (ids, dims, most ints) without BigInt.
    let v = value;
    while (v >= 0x80) {
      out[pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    out[pos++] = v;
    return pos;
  }
  let v = BigInt.asUintN(64, BigInt(value));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out[pos++] = b;
  } while (v > 0n);
  return pos;
}

/** Builds one message's bytes. Chunks are concatenated once, at `finish()`. */
export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  private varintBytes(value: bigint | number): Uint8Array {
    const out = new Uint8Array(10);
    return out.subarray(0, writeVarint(out, 0, value));
  }

  private tag(field: number, wireType: WireType): void {
    this.push(this.varintBytes((field << 3) | wireType));
  }

  varint(field: number, value: bigint | number): this {
    this.tag(field, WireType.Varint);
    this.push(this.varintBytes(value));
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WireType.LengthDelimited);
    this.push(this.varintBytes(value.length));
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  float(field: number, value: number): this {
    this.tag(field, WireType.Fixed32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  packedVarints(field: number, values: readonly (bigint | number)[]): this {
    const out = new Uint8Array(values.length * 10); // a varint is at most 10 bytes
    let pos = 0;
    for (const v of values) pos = writeVarint(out, pos, v);
    return this.bytes(field, out.subarray(0, pos));
  }

  packedFloats(field: number, values: number[]): this {
    const b = new Uint8Array(values.length * 4);
    const view = new DataView(b.buffer);
    values.forEach((v, i) => view.setFloat32(i * 4, v, true));
    return this.bytes(field, b);
  }

  message(field: number, inner: ProtoWriter): this {
    return this.bytes(field, inner.finish());
  }

  /** Re-emits a field exactly as it was read. */
  raw(encoded: Uint8Array): this {
    this.push(encoded);
    return this;
  }

  finish(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0];
    const out = new Uint8Array(this.size);
    let pos = 0;
    for (const c of this.chunks) {
      out.set(c, pos);
      pos += c.length;
    }
    this.chunks = [out];
    return out;
  }
}
