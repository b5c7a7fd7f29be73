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
// and position_ids (required) continue from P. When the LM head is a MatMul feeding `logits`, a scalar input
// logits_to_keep (k; 0 = all) limits it to the last k positions.
import type { Dim, Graph, Model, Node, ValueInfo } from './onnx-proto';
import { int64Tensor } from './graph-builder';

export class ConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConvertError';
  }
}

/** Ops allowed between present.{l}.key|value and the attention MatMuls (copied onto the prefix path). */
const KV_PATH_OPS = new Set(['Transpose', 'Mul', 'Div', 'Cast', 'Identity']);
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
      else skipped.push(node.opType);
    }
  };
  walk(start, []);
  if (found.length !== 1) {
    const seen = skipped.length ? ` (it goes on through ${[...new Set(skipped)].join(', ')})` : '';
    throw new ConvertError(
      `cannot find the one attention MatMul that reads ${what}${seen}; only Transpose/Mul/Div/Cast may sit between the KV Concat and the MatMul (grouped-query attention's Expand/Reshape is not supported)`,
    );
  }
  return found[0];
}

export interface ConvertResult {
  model: Model;
  layers: number;
}

export function convertToSharedPrefix(source: Model): ConvertResult {
  // Work on copies of the nodes: the source model is left as it was.
  const graph: Graph = {
    ...source.graph,
    nodes: source.graph.nodes.map((n) => ({ ...n, inputs: [...n.inputs], outputs: [...n.outputs] })),
  };
  const opset = source.opsetImport.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? 0;
  if (opset < 13) throw new ConvertError(`the model uses opset ${opset}; the converter needs opset 13 or newer`);
  for (const node of graph.nodes) {
    if (node.domain && node.domain !== 'ai.onnx') {
      throw new ConvertError(
        `${describe(node)} is an ONNX Runtime contrib op (fused attention or similar) and cannot be rewritten; export the model without ONNX Runtime fusions (plain MatMul/Softmax attention), e.g. optimum-cli export onnx --task text-generation-with-past without --optimize`,
      );
    }
    if (['If', 'Loop', 'Scan'].includes(node.opType)) {
      throw new ConvertError(
        `${describe(node)} holds a subgraph (a merged decoder?); convert the "decoder_with_past_model.onnx" export instead`,
      );
    }
  }
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
  layers.sort((a, b) => a - b);

  const index = indexGraph(graph);
  const nodes = [...graph.nodes];
  const inputs: ValueInfo[] = [...graph.inputs];
  const initializers = [...graph.initializers];
  let counter = 0;
  const fresh = (hint: string) => `systemone_prefix/${hint}_${counter++}`;
  const add = (opType: string, nodeInputs: string[], attributes: Node['attributes'] = []): string => {
    const out = fresh(opType.toLowerCase());
    nodes.push({ opType, inputs: nodeInputs, outputs: [out], name: fresh(`${opType}_node`), attributes });
    return out;
  };
  const constInts = (values: number[]): string => {
    const name = fresh('const');
    initializers.push(int64Tensor(name, [values.length], values));
    return name;
  };
  /** Replays a chain of nodes (each with one non-constant input) on a new tensor. */
  const replay = (chain: Node[], start: string): string => {
    let current = start;
    for (const node of chain) {
      const inputsCopy = [...node.inputs];
      inputsCopy[node.inputs.findIndex((i) => i && !index.constants.has(i))] = current;
      const out = fresh(node.opType.toLowerCase());
      nodes.push({ ...node, inputs: inputsCopy, outputs: [out], name: fresh(node.name ?? node.opType) });
      current = out;
    }
    return current;
  };

  for (const l of layers) {
    const pastKey = `past_key_values.${l}.key`;
    const pastValue = `past_key_values.${l}.value`;
    const concatOf = (past: string): Node => {
      const users = index.consumers.get(past) ?? [];
      if (users.length !== 1 || users[0].opType !== 'Concat') {
        throw new ConvertError(
          `${past} should feed exactly one Concat (past + new); it feeds ${users.map(describe).join(', ') || 'nothing'}`,
        );
      }
      return users[0];
    };
    const concatKey = concatOf(pastKey);
    const concatValue = concatOf(pastValue);
    const axisAttr = concatKey.attributes.find((a) => a.name === 'axis')?.i ?? 0n;
    const seqAxis = Number(axisAttr < 0n ? axisAttr + 4n : axisAttr);

    const keyPath = pathToMatMul(concatKey.outputs[0], index, `present.${l}.key`);
    const scoresMatMul = keyPath.matmul;
    if (keyPath.operand !== 1)
      throw new ConvertError(
        `layer ${l}: the keys are the first operand of ${describe(scoresMatMul)}; expected MatMul(q, kᵀ)`,
      );
    const valuePath = pathToMatMul(concatValue.outputs[0], index, `present.${l}.value`);
    const outputMatMul = valuePath.matmul;
    if (valuePath.operand !== 1)
      throw new ConvertError(
        `layer ${l}: the values are the first operand of ${describe(outputMatMul)}; expected MatMul(probs, v)`,
      );

    // From the scores MatMul to Softmax: scaling ops are replayed on the prefix scores, mask ops are not.
    const scaleChain: Node[] = [];
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
      value = node.outputs[0];
    }
    if (!softmax) throw new ConvertError(`layer ${l}: no Softmax found after ${describe(scoresMatMul)}`);
    const softmaxAxis = Number(softmax.attributes.find((a) => a.name === 'axis')?.i ?? -1n);
    if (softmaxAxis !== -1 && softmaxAxis !== 3)
      throw new ConvertError(`layer ${l}: Softmax over axis ${softmaxAxis}; expected the last axis`);
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

    // New inputs: one prefix for the whole batch.
    const prefixInput = (past: string, name: string): string => {
      const info = graph.inputs.find((i) => i.name === past)!;
      const shape: Dim[] | undefined = info.shape
        ? info.shape.map((d, i) => (i === 0 ? 1 : i === seqAxis ? 'prefix_sequence_length' : d))
        : undefined;
      inputs.push({ name, elemType: info.elemType, shape });
      return name;
    };
    const prefixKey = prefixInput(pastKey, `prefix_key_values.${l}.key`);
    const prefixValue = prefixInput(pastValue, `prefix_key_values.${l}.value`);

    const prefixScores = replay(scaleChain, add('MatMul', [scoresMatMul.inputs[0], replay(keyPath.path, prefixKey)]));
    const joined = add('Concat', [prefixScores, softmax.inputs[0]], [{ name: 'axis', i: -1n }]);
    softmax.inputs[0] = joined;

    const prefixLength = add('Gather', [add('Shape', [prefixKey]), constInts([seqAxis])], [{ name: 'axis', i: 0n }]);
    const lastAxis = constInts([-1]);
    const prefixProbs = add('Slice', [probs, constInts([0]), prefixLength, lastAxis]);
    const ownProbs = add('Slice', [probs, prefixLength, constInts([Number.MAX_SAFE_INTEGER]), lastAxis]);
    const attended = outputMatMul.outputs[0];
    const ownOut = fresh('own_attention');
    outputMatMul.inputs[0] = ownProbs;
    outputMatMul.outputs[0] = ownOut;
    const prefixOut = add('MatMul', [prefixProbs, replay(valuePath.path, prefixValue)]);
    nodes.push({
      opType: 'Add',
      inputs: [ownOut, prefixOut],
      outputs: [attended],
      name: fresh('Add_node'),
      attributes: [],
    });
  }

  // Logits only where they are read: a scalar logits_to_keep (0 = all) slices the hidden states before the LM head.
  const logitsProducer = graph.outputs.some((o) => o.name === 'logits') ? index.producer.get('logits') : undefined;
  let lmHead = logitsProducer;
  while (lmHead && lmHead.opType !== 'MatMul' && ['Add', 'Cast', 'Identity', 'Mul', 'Div'].includes(lmHead.opType)) {
    const from = lmHead.inputs.find((i) => i && !index.constants.has(i));
    lmHead = from ? index.producer.get(from) : undefined;
  }
  if (lmHead?.opType === 'MatMul' && !index.constants.has(lmHead.inputs[0])) {
    inputs.push({ name: 'logits_to_keep', elemType: 7, shape: [] });
    const start = add('Unsqueeze', [add('Neg', ['logits_to_keep']), constInts([0])]);
    lmHead.inputs[0] = add('Slice', [lmHead.inputs[0], start, constInts([Number.MAX_SAFE_INTEGER]), constInts([1])]);
  }

  return {
    model: {
      ...source,
      producerName: 'systemone-judge convert',
      graph: {
        ...graph,
        nodes: topologicalSort(
          nodes,
          inputs,
          initializers.map((t) => t.name),
        ),
        inputs,
        initializers,
      },
    },
    layers: layers.length,
  };
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
