// Rewrites a standard Hugging Face / Optimum decoder export ("with past", plain MatMul/Softmax attention) into the
// shared-prefix layout: every layer gains prefix_key_values.{l}.key|value [1,H,P,D] inputs that all rows attend to.
//
// Per layer, the attention found in the export
//     present.k = Concat(past.k, k)   scores = MatMul(q, path(present.k)) → scale → mask → Softmax → probs
//     out = MatMul(probs, path(present.v))
// becomes
//     prefix_scores = scale(MatMul(q, path(prefix.k)))              (no mask: the prefix is always visible)
//     probs = Softmax(Concat(prefix_scores, own_scores, axis=-1))
//     out = MatMul(probs[..., :P], path(prefix.v)) + MatMul(probs[..., P:], path(present.v))
// MatMul broadcasts the [1,H,P,D] prefix over the batch, so it is never copied per row. The own attention,
// mask, positions and present outputs are untouched: attention_mask keeps covering the row's own past + new tokens,
// and position_ids (required) continue from P. Two more inputs let several questions share a row (packing):
// own_attention_bias [B|1, 1, T|1, own|1] (float32, added to the own scores after the export's mask; 0 = no change)
// keeps each packed question to its own columns, and, when the LM head is a (MatMul|MatMulNBits) feeding `logits`,
// logits_indices [N] (flat indices into batch × sequence) runs it only on the positions read: logits [1, N, V].
import { TensorType, type Dim, type Graph, type Model, type Node, type ValueInfo } from './onnx-proto';
import { floatTensor, int64Tensor } from './graph-builder';
import { withLogitsIndices } from './logits-positions';
import { opUses, quantizationNotes } from './quantization';

const { FLOAT, FLOAT16 } = TensorType;
const DOUBLE = 11;

/** The element type after the Casts among `nodes` (the last one wins), starting from `from`. */
function castType(nodes: Node[], from: number | undefined): number | undefined {
  let type = from;
  for (const node of nodes) if (node.opType === 'Cast') type = Number(node.attributes.find((a) => a.name === 'to')?.i);
  return type;
}

export class ConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConvertError';
  }
}

/** Ops allowed between present.{l}.key|value and the attention MatMuls (copied onto the prefix path). */
const KV_PATH_OPS = new Set(['Transpose', 'Mul', 'Div', 'Cast', 'Identity', 'Unsqueeze']);
/**
 * Ops on that path whose shape input is computed in the graph: grouped-query attention's `repeat_kv` (transformers'
 * Llama / Qwen2: Unsqueeze → Expand → Reshape, the shapes read from the keys by Shape/Gather/Concat). On the prefix
 * path the shape computation is replayed with the prefix in place of the keys, so it gives [1, heads, P, D].
 */
const KV_RESHAPE_OPS = new Set(['Expand', 'Reshape']);
/** Ops a replayed shape computation may hold. */
const SHAPE_OPS = new Set([
  'Shape',
  'Gather',
  'Unsqueeze',
  'Squeeze',
  'Concat',
  'Mul',
  'Add',
  'Sub',
  'Div',
  'Cast',
  'Slice',
  'Identity',
  'Constant',
  'ConstantOfShape',
  'Equal',
  'Where',
  'Reshape',
]);
/** Ops between the scores MatMul and Softmax that are copied to the prefix scores (scaling, casting). */
const SCALE_OPS = new Set(['Mul', 'Div', 'Cast', 'Identity']);
/** Ops between the scores MatMul and Softmax that apply the mask: left on the own scores only. */
const MASK_OPS = new Set(['Add', 'Sub', 'Where', 'Max', 'Min', 'Mul', 'Div']);

interface GraphIndex {
  producer: Map<string, Node>;
  consumers: Map<string, Node[]>;
  constants: Set<string>;
}

function indexGraph(graph: Graph): GraphIndex {
  const producer = new Map<string, Node>();
  const consumers = new Map<string, Node[]>();
  const constants = new Set(graph.initializers.map((t) => t.name));
  for (const node of graph.nodes) {
    for (const out of node.outputs) producer.set(out, node);
    if (node.opType === 'Constant') node.outputs.forEach((o) => constants.add(o));
    for (const input of node.inputs) {
      if (!input) continue;
      const list = consumers.get(input) ?? [];
      list.push(node);
      consumers.set(input, list);
    }
  }
  return { producer, consumers, constants };
}

function describe(node: Node): string {
  return `${node.domain ? `${node.domain}.` : ''}${node.opType} node "${node.name ?? node.outputs[0]}"`;
}

/** True when every input but `from` is a constant (so the op can be replayed on another tensor). */
function otherInputsConstant(node: Node, from: string, index: GraphIndex): boolean {
  return node.inputs.every((i) => i === from || i === '' || index.constants.has(i));
}

/** Finds the unique path of KV_PATH_OPS from `start` to a MatMul that reads it; returns the nodes and the MatMul. */
function pathToMatMul(start: string, index: GraphIndex, what: string): { path: Node[]; matmul: Node; operand: number } {
  const found: { path: Node[]; matmul: Node; operand: number }[] = [];
  const skipped: string[] = [];
  const walk = (value: string, path: Node[]): void => {
    for (const node of index.consumers.get(value) ?? []) {
      if (node.opType === 'MatMul') found.push({ path, matmul: node, operand: node.inputs.indexOf(value) });
      else if (KV_PATH_OPS.has(node.opType) && otherInputsConstant(node, value, index))
        walk(node.outputs[0], [...path, node]);
      else if (KV_RESHAPE_OPS.has(node.opType) && node.inputs[0] === value) walk(node.outputs[0], [...path, node]);
      else skipped.push(node.opType);
    }
  };
  walk(start, []);
  if (found.length !== 1) {
    const seen = skipped.length ? ` (it goes on through ${[...new Set(skipped)].join(', ')})` : '';
    throw new ConvertError(
      `cannot find the one attention MatMul that reads ${what}${seen}; only Transpose/Mul/Div/Cast/Unsqueeze and repeat_kv's Expand/Reshape may sit between the KV Concat and the MatMul`,
    );
  }
  return found[0];
}

export interface ConvertResult {
  model: Model;
  layers: number;
  /** What the conversion found on the way (a merged decoder unpacked, grouped-query attention), for the report. */
  notes: string[];
}

/**
 * A merged decoder (Optimum's decoder_model_merged: one `If` on the `use_cache_branch` input choosing between the
 * with-past and the no-past graph) becomes its with-past branch: the branch's nodes and initializers inlined into the
 * outer graph, its outputs bound to the If's outputs, `use_cache_branch` dropped. Returns undefined for any other
 * graph; throws when the If is not that shape.
 */
export function withPastBranch(source: Model): Model | undefined {
  const ifs = source.graph.nodes.filter((n) => n.opType === 'If' && !n.domain);
  const merged = ifs.filter((n) => n.inputs[0] === 'use_cache_branch');
  if (merged.length === 0) return undefined;
  if (ifs.length !== 1)
    throw new ConvertError(
      `the graph has ${ifs.length} If nodes; a merged decoder has one, on use_cache_branch, choosing the with-past branch`,
    );
  const node = merged[0];
  const readsPast = (g: Graph | undefined): boolean =>
    Boolean(g?.nodes.some((n) => n.inputs.some((i) => i.startsWith('past_key_values.'))));
  const branches = ['then_branch', 'else_branch'].map((name) => node.attributes.find((a) => a.name === name)?.g);
  const withPast = branches.find(readsPast);
  if (!withPast || branches.every(readsPast))
    throw new ConvertError(
      `${describe(node)} on use_cache_branch: expected exactly one branch that reads past_key_values (the with-past decoder)`,
    );
  if (withPast.outputs.length !== node.outputs.length)
    throw new ConvertError(
      `${describe(node)}: its with-past branch has ${withPast.outputs.length} outputs, the If ${node.outputs.length}`,
    );
  const nodes = source.graph.nodes.filter((n) => n !== node);
  nodes.push(...withPast.nodes);
  withPast.outputs.forEach((out, i) =>
    nodes.push({
      opType: 'Identity',
      name: `use_cache_branch/${node.outputs[i]}`,
      inputs: [out.name],
      outputs: [node.outputs[i]],
      attributes: [],
    }),
  );
  const known = new Set(source.graph.initializers.map((t) => t.name));
  const initializers = [...source.graph.initializers, ...withPast.initializers.filter((t) => !known.has(t.name))];
  const stillRead = nodes.some((n) => n.inputs.includes('use_cache_branch'));
  return {
    ...source,
    graph: {
      ...source.graph,
      nodes,
      initializers,
      inputs: stillRead ? source.graph.inputs : source.graph.inputs.filter((i) => i.name !== 'use_cache_branch'),
    },
  };
}

export function convertToSharedPrefix(original: Model): ConvertResult {
  const notes: string[] = [];
  const unmerged = withPastBranch(original);
  if (unmerged) notes.push('merged decoder: kept its use_cache_branch (with past) branch');
  const source = unmerged ?? original;
  // Work on copies of the nodes: the source model is left as it was.
  const graph: Graph = {
    ...source.graph,
    nodes: source.graph.nodes.map((n) => ({ ...n, inputs: [...n.inputs], outputs: [...n.outputs] })),
  };
  const opset = source.opsetImport.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? 0;
  if (opset < 13) throw new ConvertError(`the model uses opset ${opset}; the converter needs opset 13 or newer`);
  refuseUnconvertibleOps(graph.nodes);
  notes.push(...quantizationNotes(opUses(graph.nodes), true));
  const layers = pastLayers(graph);

  const index = indexGraph(graph);
  const editor = new PrefixGraphEditor(graph, index, opset);
  for (const l of layers) {
    const attention = findLayerAttention(graph, index, l);
    if (l === layers[0] && attention.keyPath.path.some((n) => KV_RESHAPE_OPS.has(n.opType)))
      notes.push('grouped-query attention: repeat_kv (Expand/Reshape) replayed on the prefix');
    rewriteLayer(editor, graph, attention, l);
  }
  const converted: Model = {
    ...source,
    producerName: 'systemone-judge convert',
    graph: {
      ...graph,
      nodes: topologicalSort(
        editor.nodes,
        editor.inputs,
        editor.initializers.map((t) => t.name),
      ),
      inputs: editor.inputs,
      initializers: editor.initializers,
    },
  };
  return { ...withLogitsOnlyWhereRead(converted, notes), layers: layers.length, notes };
}

/**
 * Contrib ops (com.microsoft, …) that only compute weights × activations, such as int4 MatMulNBits projections or
 * GatherBlockQuantized embeddings, are kept as they are, with the model's opset imports; one that sits on the
 * KV → attention path is refused by the path walk (pathToMatMul), which names it. Fused attention
 * (GroupQueryAttention, MultiHeadAttention, Attention, …) replaces the very MatMul/Softmax the rewrite works on:
 * refused here, with subgraphs other than a merged decoder's.
 */
function refuseUnconvertibleOps(nodes: Node[]): void {
  for (const node of nodes) {
    const contrib = Boolean(node.domain) && node.domain !== 'ai.onnx';
    if (contrib && /Attention/.test(node.opType)) {
      throw new ConvertError(
        `${describe(node)} is an ONNX Runtime contrib op (fused attention) and cannot be rewritten; export the model without ONNX Runtime fusions (plain MatMul/Softmax attention), e.g. optimum-cli export onnx --task text-generation-with-past without --optimize`,
      );
    }
    if (!contrib && node.opType === 'Attention') {
      throw new ConvertError(
        `${describe(node)} is ONNX's fused Attention op (opset 23) and cannot be rewritten; export the model with plain MatMul/Softmax attention`,
      );
    }
    if (['If', 'Loop', 'Scan'].includes(node.opType)) {
      throw new ConvertError(
        `${describe(node)} holds a subgraph that is not a merged decoder's use_cache_branch; convert the "decoder_with_past_model.onnx" export instead`,
      );
    }
  }
}

/** The layer numbers of the past_key_values.{l}.key inputs, ascending; refuses a graph that cannot be converted. */
function pastLayers(graph: Graph): number[] {
  const inputNames = new Set(graph.inputs.map((i) => i.name));
  if ([...inputNames].some((n) => n.startsWith('prefix_key_values.')))
    throw new ConvertError('the model is already in the shared-prefix layout');
  if (!inputNames.has('position_ids')) {
    throw new ConvertError(
      'the graph has no position_ids input; the shared-prefix layout needs explicit positions (export with position_ids)',
    );
  }
  const layers: number[] = [];
  for (const name of inputNames) {
    const m = /^past_key_values\.(\d+)\.key$/.exec(name);
    if (m) layers.push(Number(m[1]));
  }
  if (layers.length === 0) {
    throw new ConvertError(
      'the graph has no past_key_values.{l}.key inputs; export the decoder with past (task text-generation-with-past)',
    );
  }
  return layers.sort((a, b) => a - b);
}

/** One layer's attention as found in the export: the nodes the rewrite reads and changes. */
interface LayerAttention {
  pastKey: string;
  pastValue: string;
  concatKey: Node;
  concatValue: Node;
  /** The sequence axis of the KV Concat (and of the prefix inputs). */
  seqAxis: number;
  keyPath: { path: Node[]; matmul: Node };
  valuePath: { path: Node[]; matmul: Node };
  /** The ops between the scores MatMul and Softmax that scale (replayed on the prefix scores). */
  scaleChain: Node[];
  /** The scores' element type at Softmax. */
  scoresType: number | undefined;
  softmax: Node;
}

function findLayerAttention(graph: Graph, index: GraphIndex, l: number): LayerAttention {
  const pastKey = `past_key_values.${l}.key`;
  const pastValue = `past_key_values.${l}.value`;
  const concatKey = kvConcat(pastKey, index);
  const concatValue = kvConcat(pastValue, index);
  const axisAttr = concatKey.attributes.find((a) => a.name === 'axis')?.i ?? 0n;
  const seqAxis = Number(axisAttr < 0n ? axisAttr + 4n : axisAttr);

  const keyPath = pathToMatMul(concatKey.outputs[0], index, `present.${l}.key`);
  if (keyPath.operand !== 1)
    throw new ConvertError(
      `layer ${l}: the keys are the first operand of ${describe(keyPath.matmul)}; expected MatMul(q, kᵀ)`,
    );
  const valuePath = pathToMatMul(concatValue.outputs[0], index, `present.${l}.value`);
  if (valuePath.operand !== 1)
    throw new ConvertError(
      `layer ${l}: the values are the first operand of ${describe(valuePath.matmul)}; expected MatMul(probs, v)`,
    );
  const keysType = castType(keyPath.path, graph.inputs.find((i) => i.name === pastKey)?.elemType);
  const { scaleChain, scoresType, softmax } = scoresToSoftmax(keyPath.matmul, keysType, index, l);
  checkProbsReachOutput(softmax, valuePath.matmul, index, l);
  return { pastKey, pastValue, concatKey, concatValue, seqAxis, keyPath, valuePath, scaleChain, scoresType, softmax };
}

/** The one Concat (past + new) that `past` feeds. */
function kvConcat(past: string, index: GraphIndex): Node {
  const users = index.consumers.get(past) ?? [];
  if (users.length !== 1 || users[0].opType !== 'Concat') {
    throw new ConvertError(
      `${past} should feed exactly one Concat (past + new); it feeds ${users.map(describe).join(', ') || 'nothing'}`,
    );
  }
  return users[0];
}

/**
 * From the scores MatMul to Softmax: scaling ops are replayed on the prefix scores, mask ops are not. The scores'
 * element type is the keys' after every Cast on the way (MatMul keeps its operands' type).
 */
function scoresToSoftmax(
  scoresMatMul: Node,
  keysType: number | undefined,
  index: GraphIndex,
  l: number,
): { scaleChain: Node[]; scoresType: number | undefined; softmax: Node } {
  const scaleChain: Node[] = [];
  let scoresType = keysType;
  let value = scoresMatMul.outputs[0];
  let softmax: Node | undefined;
  for (let step = 0; step < 12 && !softmax; step++) {
    const users = index.consumers.get(value) ?? [];
    if (users.length !== 1)
      throw new ConvertError(
        `layer ${l}: the attention scores feed ${users.length} nodes before Softmax; expected a single chain`,
      );
    const node = users[0];
    if (node.opType === 'Softmax') softmax = node;
    else if (SCALE_OPS.has(node.opType) && otherInputsConstant(node, value, index)) scaleChain.push(node);
    else if (!MASK_OPS.has(node.opType))
      throw new ConvertError(`layer ${l}: unexpected ${describe(node)} between the scores MatMul and Softmax`);
    scoresType = castType([node], scoresType);
    value = node.outputs[0];
  }
  if (!softmax) throw new ConvertError(`layer ${l}: no Softmax found after ${describe(scoresMatMul)}`);
  const softmaxAxis = Number(softmax.attributes.find((a) => a.name === 'axis')?.i ?? -1n);
  if (softmaxAxis !== -1 && softmaxAxis !== 3)
    throw new ConvertError(`layer ${l}: Softmax over axis ${softmaxAxis}; expected the last axis`);
  return { scaleChain, scoresType, softmax };
}

/** Softmax's output must reach the output MatMul through Cast/Identity/Dropout only. */
function checkProbsReachOutput(softmax: Node, outputMatMul: Node, index: GraphIndex, l: number): void {
  const probs = outputMatMul.inputs[0];
  let walker = softmax.outputs[0];
  while (walker !== probs) {
    const users = index.consumers.get(walker) ?? [];
    if (users.length !== 1 || !['Cast', 'Identity', 'Dropout'].includes(users[0].opType)) {
      throw new ConvertError(
        `layer ${l}: Softmax's output does not reach ${describe(outputMatMul)} through Cast/Identity only`,
      );
    }
    walker = users[0].outputs[0];
  }
}

/** Rewrites one layer's attention to attend to its prefix inputs too (the header says how). */
function rewriteLayer(editor: PrefixGraphEditor, graph: Graph, attention: LayerAttention, l: number): void {
  const { concatKey, concatValue, seqAxis, keyPath, valuePath, scaleChain, scoresType, softmax } = attention;
  const scoresMatMul = keyPath.matmul;
  const outputMatMul = valuePath.matmul;
  const probs = outputMatMul.inputs[0];
  // New inputs: one prefix for the whole batch.
  const prefixInput = (past: string, name: string): string => {
    const info = graph.inputs.find((i) => i.name === past)!;
    const shape: Dim[] | undefined = info.shape
      ? info.shape.map((d, i) => (i === 0 ? 1 : i === seqAxis ? 'prefix_sequence_length' : d))
      : undefined;
    editor.inputs.push({ name, elemType: info.elemType, shape });
    return name;
  };
  const prefixKey = prefixInput(attention.pastKey, `prefix_key_values.${l}.key`);
  const prefixValue = prefixInput(attention.pastValue, `prefix_key_values.${l}.value`);

  const prefixKeys = editor.replayKvPath(keyPath.path, concatKey.outputs[0], prefixKey, `present.${l}.key`);
  const prefixScores = editor.replay(scaleChain, editor.add('MatMul', [scoresMatMul.inputs[0], prefixKeys]));
  const ownScores = editor.add('Add', [softmax.inputs[0], editor.ownBias(scoresType, l)]);
  const joined = editor.add('Concat', [prefixScores, ownScores], [{ name: 'axis', i: -1n }]);
  softmax.inputs[0] = joined;

  const prefixLength = editor.add(
    'Gather',
    [editor.add('Shape', [prefixKey]), editor.constInts([seqAxis])],
    [{ name: 'axis', i: 0n }],
  );
  const lastAxis = editor.constInts([-1]);
  const prefixProbs = editor.add('Slice', [probs, editor.constInts([0]), prefixLength, lastAxis]);
  const ownProbs = editor.add('Slice', [probs, prefixLength, editor.constInts([Number.MAX_SAFE_INTEGER]), lastAxis]);
  const attended = outputMatMul.outputs[0];
  const ownOut = editor.fresh('own_attention');
  outputMatMul.inputs[0] = ownProbs;
  outputMatMul.outputs[0] = ownOut;
  const prefixValues = editor.replayKvPath(valuePath.path, concatValue.outputs[0], prefixValue, `present.${l}.value`);
  const prefixOut = editor.add('MatMul', [prefixProbs, prefixValues]);
  editor.nodes.push({
    opType: 'Add',
    inputs: [ownOut, prefixOut],
    outputs: [attended],
    name: editor.fresh('Add_node'),
    attributes: [],
  });
}

/**
 * Logits only where they are read (logits-positions.ts); without them, no packing either, and the bias input is
 * then of no use: fed from a constant zero instead.
 */
function withLogitsOnlyWhereRead(converted: Model, notes: string[]): { model: Model } {
  const limited = withLogitsIndices(converted);
  if ('model' in limited) {
    notes.push('logits_indices: the LM head runs only on the positions read');
    notes.push('packing: short questions share a batch row, each attending only to itself (own_attention_bias)');
    return { model: limited.model };
  }
  notes.push(`no logits_indices (${limited.reason}): every position gets logits, and questions are not packed`);
  const graphWithoutBias: Graph = {
    ...converted.graph,
    inputs: converted.graph.inputs.filter((i) => i.name !== 'own_attention_bias'),
    initializers: [
      ...converted.graph.initializers,
      floatTensor('own_attention_bias', [1, 1, 1, 1], new Float32Array(1)),
    ],
  };
  return { model: { ...converted, graph: graphWithoutBias } };
}

/**
 * The graph being rewritten: its nodes, inputs and initializers as they grow, fresh names, and the node copies the
 * rewrite makes (scaling chains and KV paths replayed on the prefix, the bias cast to the scores' type).
 */
class PrefixGraphEditor {
  readonly nodes: Node[];
  readonly inputs: ValueInfo[];
  readonly initializers: Graph['initializers'];
  private counter = 0;
  /** own_attention_bias, cast once per scores type it is added to. */
  private readonly biasOfType = new Map<number, string>([[FLOAT, 'own_attention_bias']]);

  constructor(
    graph: Graph,
    private readonly index: GraphIndex,
    private readonly opset: number,
  ) {
    this.nodes = [...graph.nodes];
    this.inputs = [...graph.inputs];
    this.initializers = [...graph.initializers];
    this.inputs.push({
      name: 'own_attention_bias',
      elemType: FLOAT,
      shape: ['bias_batch', 1, 'bias_queries', 'bias_keys'],
    });
  }

  fresh(hint: string): string {
    return `systemone_prefix/${hint}_${this.counter++}`;
  }

  add(opType: string, nodeInputs: string[], attributes: Node['attributes'] = []): string {
    const out = this.fresh(opType.toLowerCase());
    this.nodes.push({ opType, inputs: nodeInputs, outputs: [out], name: this.fresh(`${opType}_node`), attributes });
    return out;
  }

  constInts(values: number[]): string {
    const name = this.fresh('const');
    this.initializers.push(int64Tensor(name, [values.length], values));
    return name;
  }

  /** Replays a chain of nodes (each with one non-constant input) on a new tensor. */
  replay(chain: Node[], start: string): string {
    let current = start;
    for (const node of chain) {
      const inputsCopy = [...node.inputs];
      inputsCopy[node.inputs.findIndex((i) => i && !this.index.constants.has(i))] = current;
      const out = this.fresh(node.opType.toLowerCase());
      this.nodes.push({ ...node, inputs: inputsCopy, outputs: [out], name: this.fresh(node.name ?? node.opType) });
      current = out;
    }
    return current;
  }

  /** own_attention_bias in the scores' element type. */
  ownBias(type: number | undefined, layer: number): string {
    if (type === undefined || ![FLOAT, FLOAT16, DOUBLE].includes(type))
      throw new ConvertError(`layer ${layer}: cannot tell the attention scores' element type (${type ?? 'unknown'})`);
    const cast =
      this.biasOfType.get(type) ?? this.add('Cast', ['own_attention_bias'], [{ name: 'to', i: BigInt(type) }]);
    this.biasOfType.set(type, cast);
    return cast;
  }

  /**
   * Replays the KV path (Concat output → … → attention MatMul) on a prefix input. Shapes the path's Expand/Reshape
   * read are recomputed from the prefix: the nodes computing them are copied with every Shape of a tensor on the path
   * reading the prefix's counterpart instead. A shape read from anything else cannot be replayed and is refused.
   */
  replayKvPath(chain: Node[], ownStart: string, prefixStart: string, what: string): string {
    const onPath = new Map<string, string>([[ownStart, prefixStart]]);
    const copied = new Map<string, string>();
    const shapeValue = (value: string, depth: number): string => this.replayShape(value, depth, onPath, copied, what);
    let own = ownStart;
    let current = prefixStart;
    for (const node of chain) {
      const inputsCopy = node.inputs.map((i) => (i === own ? current : shapeValue(i, 0)));
      const out = this.fresh(node.opType.toLowerCase());
      const attributes = this.prefixAttributes(node, what);
      this.nodes.push({
        ...node,
        attributes,
        inputs: inputsCopy,
        outputs: [out],
        name: this.fresh(node.name ?? node.opType),
      });
      own = node.outputs[0];
      current = out;
      onPath.set(own, current);
    }
    return current;
  }

  /**
   * A KV path node's attributes on the prefix path. A Reshape to a computed shape holds the prefix length, 0 for an
   * empty prefix: read as a length, not as "copy this dimension" (allowzero, opset 14), as torch means it.
   */
  private prefixAttributes(node: Node, what: string): Node['attributes'] {
    if (node.opType !== 'Reshape' || !node.inputs[1] || this.index.constants.has(node.inputs[1]))
      return node.attributes;
    if (this.opset < 14)
      throw new ConvertError(
        `${what}: ${describe(node)} reshapes the keys/values to a computed shape, which for an empty prefix needs Reshape's allowzero (opset 14); the model uses opset ${this.opset}`,
      );
    return [...node.attributes.filter((a) => a.name !== 'allowzero'), { name: 'allowzero', i: 1n }];
  }

  /** A shape the KV path reads, recomputed from the prefix (`onPath`: own tensor → prefix tensor). */
  private replayShape(
    value: string,
    depth: number,
    onPath: Map<string, string>,
    copied: Map<string, string>,
    what: string,
  ): string {
    const mapped = onPath.get(value) ?? copied.get(value);
    if (mapped) return mapped;
    if (!value || this.index.constants.has(value)) return value;
    const node = this.index.producer.get(value);
    if (!node) {
      throw new ConvertError(
        `${what}: a shape on the path to the attention MatMul depends on the graph input "${value}", not on the keys/values alone; it cannot be recomputed for the prefix`,
      );
    }
    if (!SHAPE_OPS.has(node.opType) || node.outputs.length !== 1 || depth > 64) {
      throw new ConvertError(
        `${what}: a shape on the path to the attention MatMul is computed by ${describe(node)}, which is not shape arithmetic; it cannot be recomputed for the prefix`,
      );
    }
    if (node.opType === 'Shape' && !onPath.has(node.inputs[0])) {
      throw new ConvertError(
        `${what}: a shape on the path to the attention MatMul is read from "${node.inputs[0]}", not from the keys/values; it cannot be recomputed for the prefix`,
      );
    }
    const out = this.fresh(`${node.opType.toLowerCase()}_shape`);
    this.nodes.push({
      ...node,
      inputs: node.inputs.map((i) => this.replayShape(i, depth + 1, onPath, copied, what)),
      outputs: [out],
      name: this.fresh(node.name ?? node.opType),
    });
    copied.set(value, out);
    return out;
  }
}

/** Orders nodes so every input is produced before it is read (ONNX requires it). */
export function topologicalSort(nodes: Node[], inputs: ValueInfo[], initializers: string[]): Node[] {
  const available = new Set<string>(['', ...inputs.map((i) => i.name), ...initializers]);
  const producedBy = new Map<string, number>();
  nodes.forEach((n, i) => n.outputs.forEach((o) => producedBy.set(o, i)));
  const waiting = nodes.map((n) => new Set(n.inputs.filter((i) => !available.has(i) && producedBy.has(i))));
  const readers = new Map<string, number[]>();
  waiting.forEach((set, i) => set.forEach((name) => readers.set(name, [...(readers.get(name) ?? []), i])));
  const ready = nodes.map((_, i) => i).filter((i) => waiting[i].size === 0);
  const order: Node[] = [];
  while (ready.length) {
    const i = ready.shift()!;
    order.push(nodes[i]);
    for (const out of nodes[i].outputs) {
      for (const r of readers.get(out) ?? []) {
        waiting[r].delete(out);
        if (waiting[r].size === 0) ready.push(r);
      }
    }
  }
  if (order.length !== nodes.length) throw new ConvertError('the rewritten graph has a cycle');
  return order;
}
