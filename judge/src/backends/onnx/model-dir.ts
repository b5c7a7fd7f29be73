// One model as an inference worker holds it: its ONNX Runtime session, its log-softmax helper, and its graph's
// layout read from the session's inputs (graph-layout.ts). Runs inside the worker thread (inference-worker.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { canPack, detectLayout, type GraphInfo } from './graph-layout';
import { VocabLogSoftmax } from './log-softmax';
import { positiveNumber, type JsonObject } from './model-files';
import { withLogitsIndices } from '../../model-tools/logits-positions';
import { decodeModel, encodeModel, type Graph, type Node } from '../../model-tools/onnx-proto';
import { batchDependentOps, opUses, quantizationNotes } from '../../model-tools/quantization';

/** The settings of a model a worker needs besides its graph (read from the directory by the main thread). */
export interface ModelSettings {
  id: string;
  dir: string;
  config: JsonObject;
  maxPositions: number;
  padId: number;
}

export interface LoadedModel extends ModelSettings {
  session: ort.InferenceSession;
  graph: GraphInfo;
  inputs: Set<string>;
  /** Normalises logits rows over the full vocabulary (a helper session, one per model). */
  logSoftmax: VocabLogSoftmax;
}

/** Every node of a graph, those of its subgraphs (a merged decoder's If branches) included. */
function* allNodes(graph: Graph): Generator<Node> {
  for (const node of graph.nodes) {
    yield node;
    for (const a of node.attributes) if (a.g) yield* allNodes(a.g);
  }
}

/**
 * The session of a model directory. A graph that does not limit its logits (no logits_indices or logits_to_keep:
 * plain exports) is given logits_indices in memory first (logits-positions.ts), so that a state pass runs the LM
 * head on one position, not on every position of the state; its external data is still read from the directory.
 */
async function openSession(
  dir: string,
  intraOpNumThreads: number,
): Promise<{
  session: ort.InferenceSession;
  logitsNote?: string;
  fusedAttention?: string;
  weightNotes?: string[];
  batchDependent?: boolean;
}> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const file = join(dir, 'model.onnx');
  const bytes = readFileSync(file);
  let model;
  try {
    model = decodeModel(bytes);
  } catch {
    // Not a graph this codec reads: ONNX Runtime says what is wrong with it.
    return { session: await ort.InferenceSession.create(file, options) };
  }
  const nodes = [...allNodes(model.graph)];
  // The first ONNX Runtime fused attention op (com.microsoft, "Attention" in its name), and the weights' quantization.
  const fusedAttention = nodes.find((n) => n.domain === 'com.microsoft' && n.opType.includes('Attention'))?.opType;
  const uses = opUses(nodes);
  const weightNotes = quantizationNotes(uses);
  const batchDependent = batchDependentOps(uses);
  if (model.graph.inputs.some((i) => i.name === 'logits_indices' || i.name === 'logits_to_keep'))
    return { session: await ort.InferenceSession.create(file, options), fusedAttention, weightNotes, batchDependent };
  const limited = withLogitsIndices(model);
  if (!('model' in limited)) {
    return {
      session: await ort.InferenceSession.create(file, options),
      logitsNote: `every position gets logits (${limited.reason})`,
      fusedAttention,
      weightNotes,
      batchDependent,
    };
  }
  const session = await ort.InferenceSession.create(encodeModel(limited.model), {
    ...options,
    extra: { session: { model_external_initializers_file_folder_path: dir } },
  });
  return {
    session,
    logitsNote: 'logits_indices added when loaded: the LM head runs only on the positions read',
    fusedAttention,
    weightNotes,
    batchDependent,
  };
}

export async function loadModel(settings: ModelSettings, intraOpNumThreads: number): Promise<LoadedModel> {
  const { dir, config } = settings;
  const { session, logitsNote, fusedAttention, weightNotes, batchDependent } = await openSession(
    dir,
    intraOpNumThreads,
  );
  const { layout, layers } = detectLayout(session.inputNames);

  let heads = positiveNumber(config.num_key_value_heads, config.n_head, config.num_attention_heads) ?? 0;
  let headDim = positiveNumber(config.head_dim) ?? 0;
  let kvType: 'float32' | 'float16' = 'float32';
  const pastMeta = session.inputMetadata.find((m) => m.name === 'past_key_values.0.key');
  if (pastMeta && pastMeta.isTensor) {
    if (typeof pastMeta.shape[1] === 'number') heads = pastMeta.shape[1];
    if (typeof pastMeta.shape[3] === 'number') headDim = pastMeta.shape[3];
    if (pastMeta.type === 'float16') kvType = 'float16';
    else if (pastMeta.type !== 'float32') throw new Error(`past_key_values of type ${pastMeta.type} are not supported`);
  }
  if (layout !== 'no-past' && !headDim) {
    const hidden = positiveNumber(config.hidden_size, config.n_embd);
    const attentionHeads = positiveNumber(config.num_attention_heads, config.n_head);
    if (hidden && attentionHeads) headDim = hidden / attentionHeads;
  }
  if (layout !== 'no-past' && (!heads || !headDim)) {
    throw new Error(
      `${dir}: cannot tell the KV heads and head size (config.json needs num_key_value_heads/n_head and head_dim or hidden_size)`,
    );
  }
  const logitsMeta = session.outputMetadata.find((m) => m.name === 'logits');
  if (!logitsMeta) throw new Error(`${dir}: the graph has no "logits" output`);
  if (logitsMeta.isTensor && logitsMeta.type !== 'float32' && logitsMeta.type !== 'float16') {
    throw new Error(`${dir}: logits of type ${logitsMeta.type} are not supported`);
  }
  const logitsType = logitsMeta.isTensor && logitsMeta.type === 'float16' ? 'float16' : 'float32';
  const logSoftmax = await VocabLogSoftmax.create(logitsType, intraOpNumThreads);
  const inputNames = [...session.inputNames];
  const packing = canPack(inputNames);
  const graph: GraphInfo = {
    layout,
    layers,
    heads,
    headDim,
    kvType,
    logitsType,
    inputNames,
    packing,
    logitsNote,
    ...(fusedAttention ? { fusedAttention } : {}),
    ...(weightNotes?.length ? { weightNotes } : {}),
    ...(batchDependent ? { batchDependent } : {}),
  };
  return { ...settings, session, graph, inputs: new Set(session.inputNames), logSoftmax };
}

export async function releaseModel(m: LoadedModel): Promise<void> {
  await m.session.release();
  await m.logSoftmax.release();
}
