// ONNX ModelProto, decoded into plain objects and encoded back. Field numbers follow onnx/onnx.proto.
// Fields this module does not model are kept as raw bytes and re-emitted unchanged.
import {
  ProtoWriter,
  ProtobufError,
  appendAll,
  bigInt64Of,
  int64Of,
  packedFloats,
  packedVarints,
  readFields,
  stringOf,
  type RawField,
} from './protobuf';

export const TensorType = { FLOAT: 1, INT32: 6, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7 } as const;

export interface Tensor {
  name: string;
  dims: number[];
  dataType: number;
  rawData?: Uint8Array;
  floatData?: number[];
  int64Data?: bigint[];
  int32Data?: number[];
  /** Weights kept in another file (external_data: location, offset, length, …), with dataLocation 1 (EXTERNAL). */
  externalData?: { key: string; value: string }[];
  dataLocation?: number;
  unknown?: Uint8Array[];
}

export const DataLocation = { DEFAULT: 0, EXTERNAL: 1 } as const;

export interface Attribute {
  name: string;
  f?: number;
  i?: bigint;
  s?: Uint8Array;
  t?: Tensor;
  floats?: number[];
  ints?: bigint[];
  /** A subgraph (an If node's then_branch / else_branch). */
  g?: Graph;
  /** The attribute type as read, re-emitted when the fields above do not say it (strings, graphs lists, …). */
  type?: number;
  /** The raw bytes of everything else, re-emitted as read. */
  unknown?: Uint8Array[];
}

export interface Node {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  attributes: Attribute[];
  unknown?: Uint8Array[];
}

/** A dimension: a fixed size, a symbolic name, or unknown. */
export type Dim = number | string | null;

export interface ValueInfo {
  name: string;
  elemType?: number;
  shape?: Dim[];
  unknown?: Uint8Array[];
}

export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  valueInfo: ValueInfo[];
  unknown?: Uint8Array[];
}

export interface OpsetId {
  domain: string;
  version: number;
}

export interface Model {
  irVersion: number;
  producerName?: string;
  opsetImport: OpsetId[];
  graph: Graph;
  unknown?: Uint8Array[];
}

// ---------- decode ----------

function keep(list: Uint8Array[] | undefined, f: RawField): Uint8Array[] {
  const out = list ?? [];
  out.push(f.encoded);
  return out;
}

export function decodeTensor(buf: Uint8Array): Tensor {
  const t: Tensor = { name: '', dims: [], dataType: 0 };
  for (const f of readFields(buf)) {
    switch (f.field) {
      case 1:
        appendAll(t.dims, packedVarints(f), Number);
        break;
      case 2:
        t.dataType = int64Of(f);
        break;
      case 4:
        appendAll((t.floatData ??= []), packedFloats(f));
        break;
      case 5:
        appendAll((t.int32Data ??= []), packedVarints(f), Number);
        break;
      case 7:
        appendAll((t.int64Data ??= []), packedVarints(f));
        break;
      case 8:
        t.name = stringOf(f);
        break;
      case 9:
        t.rawData = f.bytes;
        break;
      case 13: {
        const entry = { key: '', value: '' };
        for (const e of readFields(f.bytes!)) {
          if (e.field === 1) entry.key = stringOf(e);
          else if (e.field === 2) entry.value = stringOf(e);
        }
        (t.externalData ??= []).push(entry);
        break;
      }
      case 14:
        t.dataLocation = int64Of(f);
        break;
      default:
        t.unknown = keep(t.unknown, f);
    }
  }
  return t;
}

/** The files (relative to the model) that hold the weights of initializers stored as external data. */
export function externalDataFiles(model: Model): string[] {
  const files = new Set<string>();
  for (const t of model.graph.initializers) {
    if (t.dataLocation !== DataLocation.EXTERNAL) continue;
    const location = t.externalData?.find((e) => e.key === 'location')?.value;
    if (location) files.add(location);
  }
  return [...files];
}

function decodeAttribute(buf: Uint8Array): Attribute {
  const a: Attribute = { name: '' };
  for (const f of readFields(buf)) {
    switch (f.field) {
      case 1:
        a.name = stringOf(f);
        break;
      case 2:
        a.f = packedFloats(f)[0];
        break;
      case 3:
        a.i = bigInt64Of(f);
        break;
      case 4:
        a.s = f.bytes;
        break;
      case 5:
        a.t = decodeTensor(f.bytes!);
        break;
      case 6:
        a.g = decodeGraph(f.bytes!);
        break;
      case 7:
        appendAll((a.floats ??= []), packedFloats(f));
        break;
      case 8:
        appendAll((a.ints ??= []), packedVarints(f));
        break;
      case 20:
        a.type = int64Of(f); // re-derived on encode from the fields above when they say it
        break;
      default:
        a.unknown = keep(a.unknown, f);
    }
  }
  return a;
}

function decodeNode(buf: Uint8Array): Node {
  const n: Node = { opType: '', inputs: [], outputs: [], attributes: [] };
  for (const f of readFields(buf)) {
    switch (f.field) {
      case 1:
        n.inputs.push(stringOf(f));
        break;
      case 2:
        n.outputs.push(stringOf(f));
        break;
      case 3:
        n.name = stringOf(f);
        break;
      case 4:
        n.opType = stringOf(f);
        break;
      case 5:
        n.attributes.push(decodeAttribute(f.bytes!));
        break;
      case 7:
        n.domain = stringOf(f);
        break;
      default:
        n.unknown = keep(n.unknown, f);
    }
  }
  return n;
}

function decodeValueInfo(buf: Uint8Array): ValueInfo {
  const v: ValueInfo = { name: '' };
  for (const f of readFields(buf)) {
    if (f.field === 1) v.name = stringOf(f);
    else if (f.field === 2) decodeType(f.bytes!, v);
    else v.unknown = keep(v.unknown, f);
  }
  return v;
}

function decodeType(buf: Uint8Array, into: ValueInfo): void {
  for (const f of readFields(buf)) {
    if (f.field !== 1)
      throw new ProtobufError(`value ${into.name} is not a tensor; only tensor inputs and outputs are supported`);
    for (const tf of readFields(f.bytes!)) {
      if (tf.field === 1) into.elemType = int64Of(tf);
      else if (tf.field === 2) {
        into.shape = [];
        for (const df of readFields(tf.bytes!)) {
          if (df.field !== 1) continue;
          let dim: Dim = null;
          for (const x of readFields(df.bytes!)) {
            if (x.field === 1) dim = int64Of(x);
            else if (x.field === 2) dim = stringOf(x);
          }
          into.shape.push(dim);
        }
      }
    }
  }
}

function decodeGraph(buf: Uint8Array): Graph {
  const g: Graph = { name: '', nodes: [], initializers: [], inputs: [], outputs: [], valueInfo: [] };
  for (const f of readFields(buf)) {
    switch (f.field) {
      case 1:
        g.nodes.push(decodeNode(f.bytes!));
        break;
      case 2:
        g.name = stringOf(f);
        break;
      case 5:
        g.initializers.push(decodeTensor(f.bytes!));
        break;
      case 11:
        g.inputs.push(decodeValueInfo(f.bytes!));
        break;
      case 12:
        g.outputs.push(decodeValueInfo(f.bytes!));
        break;
      case 13:
        g.valueInfo.push(decodeValueInfo(f.bytes!));
        break;
      default:
        g.unknown = keep(g.unknown, f);
    }
  }
  return g;
}

export function decodeModel(buf: Uint8Array): Model {
  let graph: Graph | undefined;
  const m: Omit<Model, 'graph'> = { irVersion: 0, opsetImport: [] };
  let unknown: Uint8Array[] | undefined;
  for (const f of readFields(buf)) {
    switch (f.field) {
      case 1:
        m.irVersion = int64Of(f);
        break;
      case 2:
        m.producerName = stringOf(f);
        break;
      case 7:
        graph = decodeGraph(f.bytes!);
        break;
      case 8: {
        const op: OpsetId = { domain: '', version: 0 };
        for (const x of readFields(f.bytes!)) {
          if (x.field === 1) op.domain = stringOf(x);
          else if (x.field === 2) op.version = int64Of(x);
        }
        m.opsetImport.push(op);
        break;
      }
      default:
        unknown = keep(unknown, f);
    }
  }
  if (!graph) throw new ProtobufError('not an ONNX model: no graph');
  return { ...m, graph, unknown };
}

// ---------- encode ----------

function writeUnknown(w: ProtoWriter, unknown?: Uint8Array[]): void {
  for (const u of unknown ?? []) w.raw(u);
}

export function encodeTensor(t: Tensor): ProtoWriter {
  const w = new ProtoWriter();
  if (t.dims.length) w.packedVarints(1, t.dims);
  w.varint(2, t.dataType);
  if (t.floatData?.length) w.packedFloats(4, t.floatData);
  if (t.int32Data?.length) w.packedVarints(5, t.int32Data);
  if (t.int64Data?.length) w.packedVarints(7, t.int64Data);
  if (t.name) w.string(8, t.name);
  if (t.rawData) w.bytes(9, t.rawData);
  for (const e of t.externalData ?? []) w.message(13, new ProtoWriter().string(1, e.key).string(2, e.value));
  if (t.dataLocation !== undefined) w.varint(14, t.dataLocation);
  writeUnknown(w, t.unknown);
  return w;
}

function encodeAttribute(a: Attribute): ProtoWriter {
  const w = new ProtoWriter().string(1, a.name);
  let type = 0;
  if (a.f !== undefined) {
    w.float(2, a.f);
    type = AttrType.FLOAT;
  }
  if (a.i !== undefined) {
    w.varint(3, a.i);
    type = AttrType.INT;
  }
  if (a.s !== undefined) {
    w.bytes(4, a.s);
    type = AttrType.STRING;
  }
  if (a.t !== undefined) {
    w.message(5, encodeTensor(a.t));
    type = AttrType.TENSOR;
  }
  if (a.g !== undefined) {
    w.message(6, encodeGraph(a.g));
    type = AttrType.GRAPH;
  }
  if (a.floats !== undefined) {
    w.packedFloats(7, a.floats);
    type = AttrType.FLOATS;
  }
  if (a.ints !== undefined) {
    w.packedVarints(8, a.ints);
    type = AttrType.INTS;
  }
  writeUnknown(w, a.unknown);
  type ||= a.type ?? 0;
  if (type) w.varint(20, type);
  return w;
}

function encodeNode(n: Node): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const a of n.attributes) w.message(5, encodeAttribute(a));
  if (n.domain) w.string(7, n.domain);
  writeUnknown(w, n.unknown);
  return w;
}

function encodeValueInfo(v: ValueInfo): ProtoWriter {
  const w = new ProtoWriter().string(1, v.name);
  if (v.elemType !== undefined) {
    const tensor = new ProtoWriter().varint(1, v.elemType);
    if (v.shape) {
      const shape = new ProtoWriter();
      for (const d of v.shape) {
        const dim = new ProtoWriter();
        if (typeof d === 'number') dim.varint(1, d);
        else if (typeof d === 'string') dim.string(2, d);
        shape.message(1, dim);
      }
      tensor.message(2, shape);
    }
    w.message(2, new ProtoWriter().message(1, tensor));
  }
  writeUnknown(w, v.unknown);
  return w;
}

function encodeGraph(g: Graph): ProtoWriter {
  const w = new ProtoWriter();
  for (const n of g.nodes) w.message(1, encodeNode(n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, encodeTensor(t));
  for (const v of g.inputs) w.message(11, encodeValueInfo(v));
  for (const v of g.outputs) w.message(12, encodeValueInfo(v));
  for (const v of g.valueInfo) w.message(13, encodeValueInfo(v));
  writeUnknown(w, g.unknown);
  return w;
}

export function encodeModel(m: Model): Uint8Array {
  const w = new ProtoWriter().varint(1, m.irVersion);
  if (m.producerName) w.string(2, m.producerName);
  w.message(7, encodeGraph(m.graph));
  for (const op of m.opsetImport) {
    const o = new ProtoWriter();
    if (op.domain) o.string(1, op.domain);
    o.varint(2, op.version);
    w.message(8, o);
  }
  writeUnknown(w, m.unknown);
  return w.finish();
}
