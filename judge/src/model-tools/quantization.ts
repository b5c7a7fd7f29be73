// What a graph's quantization is, in the words `convert` and `serve` use, from the ops its nodes use; and a scan of
// a model file's node ops that never loads its weights (positioned reads: initializers are skipped, not read).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ProtobufError } from './protobuf';

/** One node as far as the notes need it: its op, its domain, and its int attributes (MatMulNBits' bits). */
export interface OpUse {
  opType: string;
  domain?: string;
  ints?: Record<string, number>;
}

const DEFAULT_DOMAINS = new Set(['', 'ai.onnx']);

/**
 * Notes on the quantized weights a graph holds, e.g. "int4 MatMulNBits weights (ONNX Runtime contrib op, kept)";
 * none for a float graph. `others`: also name every other contrib op (for `convert`, which keeps them).
 */
export function quantizationNotes(ops: Iterable<OpUse>, others = false): string[] {
  const seen = new Map<string, OpUse[]>();
  for (const op of ops) {
    const key = DEFAULT_DOMAINS.has(op.domain ?? '') ? op.opType : `${op.domain}.${op.opType}`;
    const uses = seen.get(key);
    if (uses) uses.push(op);
    else seen.set(key, [op]);
  }
  const notes: string[] = [];
  const nbits = seen.get('com.microsoft.MatMulNBits');
  if (nbits) {
    const bits = [...new Set(nbits.map((n) => n.ints?.bits ?? 4))].sort().join('/');
    notes.push(`int${bits} MatMulNBits weights (ONNX Runtime contrib op, kept)`);
  }
  if (seen.has('com.microsoft.GatherBlockQuantized'))
    notes.push('blockwise-quantized embeddings: GatherBlockQuantized (ONNX Runtime contrib op, kept)');
  if (seen.has('MatMulInteger') || seen.has('DynamicQuantizeLinear') || seen.has('com.microsoft.DynamicQuantizeMatMul'))
    notes.push(
      'int8 dynamic quantization (DynamicQuantizeLinear → MatMulInteger): activations are quantized per run with one scale over the whole batch, so scores shift slightly with what is batched together',
    );
  else if (seen.has('QuantizeLinear') && seen.has('DequantizeLinear'))
    notes.push('int8 QDQ quantization: QuantizeLinear/DequantizeLinear around the MatMuls (fixed scales)');
  else if (seen.has('DequantizeLinear')) notes.push('quantized weights read through DequantizeLinear');
  if (others) {
    const known = new Set(['com.microsoft.MatMulNBits', 'com.microsoft.GatherBlockQuantized']);
    const rest = [...seen.keys()].filter((k) => k.includes('.') && !known.has(k)); // ops of another domain
    if (rest.length) notes.push(`contrib ops kept as they are: ${rest.join(', ')}`);
  }
  return notes;
}

/** Reads a file through a window, so that a scan touches only the bytes it parses. */
class Window {
  private buffer = Buffer.alloc(1 << 16);
  private start = 0;
  private length = 0;
  readonly size: number;

  constructor(private readonly fd: number) {
    this.size = fstatSync(fd).size;
  }

  bytes(pos: number, length: number): Uint8Array {
    if (pos < 0 || pos + length > this.size) throw new ProtobufError('a field runs past the end of the file');
    if (pos < this.start || pos + length > this.start + this.length) {
      if (length > this.buffer.length) this.buffer = Buffer.alloc(length);
      this.start = pos;
      this.length = readSync(this.fd, this.buffer, 0, Math.min(this.buffer.length, this.size - pos), pos);
    }
    return this.buffer.subarray(pos - this.start, pos - this.start + length);
  }

  byte(pos: number): number {
    return this.bytes(pos, 1)[0];
  }
}

interface FieldAt {
  field: number;
  wireType: number;
  /** Varint fields: the value; length-delimited: the payload's length. */
  value: number;
  /** Where the payload starts. */
  at: number;
}

function* fieldsAt(w: Window, start: number, end: number): Generator<FieldAt> {
  let pos = start;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = w.byte(pos++);
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  };
  while (pos < end) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType === 0) {
      const value = varint();
      yield { field, wireType, value, at: pos };
    } else if (wireType === 2) {
      const length = varint();
      const at = pos;
      pos += length;
      if (pos > end) throw new ProtobufError(`field ${field} runs past the end of its message`);
      yield { field, wireType, value: length, at };
    } else if (wireType === 1 || wireType === 5) {
      const at = pos;
      pos += wireType === 1 ? 8 : 4;
      yield { field, wireType, value: 0, at };
    } else throw new ProtobufError(`unsupported wire type ${wireType} in field ${field}`);
  }
}

const text = (w: Window, f: FieldAt): string => new TextDecoder().decode(w.bytes(f.at, f.value));

/** The ops of every node of a graph (GraphProto at [start, end)), subgraphs (If branches) included. */
function scanGraph(w: Window, start: number, end: number, into: OpUse[], depth: number): void {
  if (depth > 16) throw new ProtobufError('subgraphs nested too deep');
  for (const f of fieldsAt(w, start, end)) {
    if (f.field !== 1 || f.wireType !== 2) continue; // GraphProto.node; initializers and the rest are skipped
    const op: OpUse = { opType: '' };
    for (const n of fieldsAt(w, f.at, f.at + f.value)) {
      if (n.field === 4 && n.wireType === 2) op.opType = text(w, n);
      else if (n.field === 7 && n.wireType === 2) op.domain = text(w, n);
      else if (n.field === 5 && n.wireType === 2) {
        // AttributeProto: name (1), i (3), g (6), graphs (11).
        let name = '';
        let int: number | undefined;
        for (const a of fieldsAt(w, n.at, n.at + n.value)) {
          if (a.field === 1 && a.wireType === 2) name = text(w, a);
          else if (a.field === 3 && a.wireType === 0) int = a.value;
          else if ((a.field === 6 || a.field === 11) && a.wireType === 2)
            scanGraph(w, a.at, a.at + a.value, into, depth + 1);
        }
        if (int !== undefined && name) (op.ints ??= {})[name] = int;
      }
    }
    into.push(op);
  }
}

/** The ops of every node of the ONNX model in `path`, without reading its initializers. */
export function scanNodeOps(path: string): OpUse[] {
  const fd = openSync(path, 'r');
  try {
    const w = new Window(fd);
    const ops: OpUse[] = [];
    for (const f of fieldsAt(w, 0, w.size)) {
      if (f.field === 7 && f.wireType === 2) scanGraph(w, f.at, f.at + f.value, ops, 0); // ModelProto.graph
    }
    return ops;
  } finally {
    closeSync(fd);
  }
}

/** The same from a decoded node list (as `convert` has it). */
export function opUses(
  nodes: Iterable<{ opType: string; domain?: string; attributes: { name: string; i?: bigint }[] }>,
): OpUse[] {
  return [...nodes].map((n) => ({
    opType: n.opType,
    domain: n.domain,
    ints: Object.fromEntries(n.attributes.filter((a) => a.i !== undefined).map((a) => [a.name, Number(a.i)])),
  }));
}
