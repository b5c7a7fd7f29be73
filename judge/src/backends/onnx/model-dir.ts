// One model directory (model.onnx + tokenizer.json + tokenizer_config.json + config.json), loaded once:
// its session, its offline tokenizer, and its graph layout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { VocabLogSoftmax } from './log-softmax';

/**
 * shared-prefix: prefix_key_values.{l}.* broadcast to every row + each row's own past (one batch for all questions);
 * plain-past: HF past_key_values.{l}.* only (state once, then questions one by one against it);
 * no-past: one full pass per question.
 */
export type GraphLayout = 'shared-prefix' | 'plain-past' | 'no-past';

const KNOWN_INPUTS = new Set(['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch', 'logits_to_keep']);

export interface GraphShape {
  layout: GraphLayout;
  layers: number;
}

/** Reads the layout from the graph's input names; throws naming anything it cannot feed. */
export function detectLayout(inputNames: readonly string[]): GraphShape {
  const past = new Set<number>();
  const prefix = new Set<number>();
  for (const name of inputNames) {
    const m = /^(past_key_values|prefix_key_values)\.(\d+)\.(key|value)$/.exec(name);
    if (m) (m[1] === 'past_key_values' ? past : prefix).add(Number(m[2]));
    else if (!KNOWN_INPUTS.has(name))
      throw new Error(`the graph has an input "${name}" this backend does not know how to feed`);
  }
  if (!inputNames.includes('input_ids')) throw new Error('the graph has no "input_ids" input');
  for (const l of past) {
    if (!inputNames.includes(`past_key_values.${l}.key`) || !inputNames.includes(`past_key_values.${l}.value`)) {
      throw new Error(`the graph has only one of past_key_values.${l}.key / .value`);
    }
  }
  if (prefix.size > 0) {
    if (prefix.size !== past.size || [...prefix].some((l) => !past.has(l))) {
      throw new Error('prefix_key_values.* and past_key_values.* inputs must cover the same layers');
    }
    if (!inputNames.includes('position_ids')) throw new Error('a shared-prefix graph needs a "position_ids" input');
    return { layout: 'shared-prefix', layers: prefix.size };
  }
  return past.size > 0 ? { layout: 'plain-past', layers: past.size } : { layout: 'no-past', layers: 0 };
}

export interface LoadedModel {
  dir: string;
  session: ort.InferenceSession;
  tokenizer: Tokenizer;
  layout: GraphLayout;
  layers: number;
  heads: number;
  headDim: number;
  kvType: 'float32' | 'float16';
  inputs: Set<string>;
  /** Longest sequence the model holds (positions). */
  maxPositions: number;
  padId: number;
  /** Normalises logits rows over the full vocabulary (a helper session, one per model). */
  logSoftmax: VocabLogSoftmax;
}

function readJson(dir: string, file: string, required: boolean): Record<string, unknown> {
  const path = join(dir, file);
  if (!existsSync(path)) {
    if (required) throw new Error(`model directory ${dir} has no ${file}`);
    return {};
  }
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function positiveNumber(...values: unknown[]): number | undefined {
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
  return undefined;
}

export async function loadModelDir(dir: string, intraOpNumThreads: number): Promise<LoadedModel> {
  const modelPath = join(dir, 'model.onnx');
  if (!existsSync(modelPath)) throw new Error(`model directory ${dir} has no model.onnx`);
  const config = readJson(dir, 'config.json', true);
  const tokenizerJson = readJson(dir, 'tokenizer.json', true);
  const tokenizerConfig = readJson(dir, 'tokenizer_config.json', false);
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
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
  const maxPositions =
    positiveNumber(
      config.max_position_embeddings,
      config.n_positions,
      config.n_ctx,
      tokenizerConfig.model_max_length,
    ) ?? Number.MAX_SAFE_INTEGER;
  const padId = positiveNumber(config.pad_token_id, config.eos_token_id) ?? 0;
  const logitsMeta = session.outputMetadata.find((m) => m.name === 'logits');
  if (!logitsMeta) throw new Error(`${dir}: the graph has no "logits" output`);
  if (logitsMeta.isTensor && logitsMeta.type !== 'float32' && logitsMeta.type !== 'float16') {
    throw new Error(`${dir}: logits of type ${logitsMeta.type} are not supported`);
  }
  const logitsType = logitsMeta.isTensor && logitsMeta.type === 'float16' ? 'float16' : 'float32';
  const logSoftmax = await VocabLogSoftmax.create(logitsType, intraOpNumThreads);
  return {
    dir,
    session,
    tokenizer,
    layout,
    layers,
    heads,
    headDim,
    kvType,
    inputs: new Set(session.inputNames),
    maxPositions,
    padId,
    logSoftmax,
  };
}
