// Logits only where they are read: a `logits_indices` [N] input (flat indices into batch × sequence) gathers those
// positions of the [B, T, hidden] states before the LM head, which then gives logits [1, N, V]. Used by `convert`
// and, for graphs served as they are, when a model is loaded (model-dir.ts), so that a state pass does not run the
// LM head over every position of the state.
import type { Graph, Model, Node } from './onnx-proto';
import { int64Tensor } from './graph-builder';

export const LOGITS_INDICES = 'logits_indices';

/**
 * Ops between the LM head and the `logits` output that act per position: bias, casts, scaling, and the quantize /
 * dequantize steps of int8 exports (QDQ with fixed scales; int8 dynamic's Cast → Mul by the scales).
 */
const AFTER_HEAD_OPS = new Set(['Add', 'Cast', 'Identity', 'Mul', 'Div', 'QuantizeLinear', 'DequantizeLinear']);

/**
 * The LM head: MatMul (float or QDQ), MatMulNBits (int4) or MatMulInteger (int8 dynamic). Its first operand holds
 * one row per position; for MatMulInteger that is the already quantized activations (the scale of the whole tensor
 * is computed before the gather), so the gathered logits are exactly those of the full graph.
 */
const isLmHead = (node: Node | undefined): boolean =>
  node?.opType === 'MatMul' ||
  node?.opType === 'MatMulInteger' ||
  (node?.opType === 'MatMulNBits' && node.domain === 'com.microsoft');

/**
 * Rewrites `graph` in place so that the LM head producing `output` reads only the gathered positions. Follows a
 * merged decoder's `If` into both branches. Returns why not when the graph does not allow it.
 */
function gatherBeforeLmHead(graph: Graph, output: string, depth = 0): string | undefined {
  const producer = new Map<string, Node>();
  for (const node of graph.nodes) for (const out of node.outputs) producer.set(out, node);
  const constants = new Set(graph.initializers.map((t) => t.name));
  for (const node of graph.nodes) if (node.opType === 'Constant') node.outputs.forEach((o) => constants.add(o));

  let node = producer.get(output);
  if (node?.opType === 'If' && !node.domain && depth === 0) {
    const at = node.outputs.indexOf(output);
    for (const name of ['then_branch', 'else_branch']) {
      const branch = node.attributes.find((a) => a.name === name)?.g;
      if (!branch) return `${name} of the If producing ${output} is missing`;
      const why = gatherBeforeLmHead(branch, branch.outputs[at].name, depth + 1);
      if (why) return why;
    }
    return undefined;
  }
  while (node && !isLmHead(node) && AFTER_HEAD_OPS.has(node.opType)) {
    const from = node.inputs.find((i) => i && !constants.has(i));
    node = from ? producer.get(from) : undefined;
  }
  if (!node || !isLmHead(node)) return `the LM head is not a MatMul (MatMulNBits, MatMulInteger) feeding ${output}`;
  if (constants.has(node.inputs[0])) return `the LM head's first operand is a constant`;
  const fresh = (hint: string) => `systemone_logits/${hint}_${depth}`;
  const axes = fresh('axes0');
  graph.initializers.push(int64Tensor(axes, [1], [0]));
  // Inserted just before the LM head, which already comes after the hidden states: the order stays topological.
  graph.nodes.splice(
    graph.nodes.indexOf(node),
    0,
    {
      opType: 'Flatten',
      name: fresh('flatten'),
      inputs: [node.inputs[0]],
      outputs: [fresh('flat')],
      attributes: [{ name: 'axis', i: 2n }],
    },
    {
      opType: 'Gather',
      name: fresh('gather'),
      inputs: [fresh('flat'), LOGITS_INDICES],
      outputs: [fresh('picked')],
      attributes: [{ name: 'axis', i: 0n }],
    },
    {
      opType: 'Unsqueeze',
      name: fresh('unsqueeze'),
      inputs: [fresh('picked'), axes],
      outputs: [fresh('rows')],
      attributes: [],
    },
  );
  node.inputs[0] = fresh('rows');
  return undefined;
}

/** A copy of `model` that takes `logits_indices` and gives logits [1, N, V] at those positions, or why it cannot. */
export function withLogitsIndices(model: Model): { model: Model } | { reason: string } {
  if (!model.graph.outputs.some((o) => o.name === 'logits')) return { reason: 'the graph has no logits output' };
  if (model.graph.inputs.some((i) => i.name === LOGITS_INDICES || i.name === 'logits_to_keep'))
    return { reason: 'the graph already limits its logits' };
  const graph = cloneGraph(model.graph);
  const reason = gatherBeforeLmHead(graph, 'logits');
  if (reason) return { reason };
  graph.inputs.push({ name: LOGITS_INDICES, elemType: 7, shape: ['logits_count'] });
  graph.outputs = graph.outputs.map((o) =>
    o.name === 'logits' && o.shape?.length === 3 ? { ...o, shape: [1, 'logits_count', o.shape[2]] } : o,
  );
  return { model: { ...model, graph } };
}

/** Copies the node lists (and subgraphs) so the rewrite leaves the source model as it was; tensors are shared. */
function cloneGraph(graph: Graph): Graph {
  return {
    ...graph,
    initializers: [...graph.initializers],
    inputs: [...graph.inputs],
    outputs: [...graph.outputs],
    nodes: graph.nodes.map((n) => ({
      ...n,
      inputs: [...n.inputs],
      outputs: [...n.outputs],
      attributes: n.attributes.map((a) => (a.g ? { ...a, g: cloneGraph(a.g) } : a)),
    })),
  };
}
