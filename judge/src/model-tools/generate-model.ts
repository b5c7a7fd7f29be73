// Seeded generator of tiny decoder-only language models (opset 17, random weights, standard ops only),
// written as a Hugging Face style model directory: model.onnx, tokenizer.json, tokenizer_config.json, config.json.
//
// Layouts (graph inputs → outputs):
//   plain-past:    input_ids, attention_mask [B, past+T], position_ids, past_key_values.{l}.key|value [B,H,past,D]
//                  → logits [B,T,V], present.{l}.key|value [B,H,past+T,D]   (the usual Optimum "with past" export)
//   shared-prefix: the same, plus prefix_key_values.{l}.key|value [1,H,P,D]: one prefix every row attends to,
//                  broadcast inside attention (never copied per row). attention_mask covers the row's own
//                  past + new tokens; the prefix is always visible; position_ids continue from P.
//                  A scalar logits_to_keep (k; 0 = all) limits logits to the last k positions.
//   no-past:       input_ids, attention_mask, position_ids → logits
// The oracle model's logits are a lookup table indexed by the last input token (no past).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphBuilder } from './graph-builder';
import { TensorType, encodeModel, type Model } from './onnx-proto';
import { buildTokenizerFixture, type TokenizerFixture, type TokenizerFixtureOptions } from './tokenizer-fixture';

export type ModelLayout = 'plain-past' | 'shared-prefix' | 'no-past';

export interface TinyLmSpec {
  seed: number;
  layout: ModelLayout;
  /** Logit rows; at least the tokenizer's size (extra rows are unused tokens, as in padded exports). */
  vocabSize: number;
  hidden: number;
  layers: number;
  heads: number;
  maxPositions: number;
  /** Hidden size of the MLP (default 4 × hidden). */
  intermediate?: number;
}

/** mulberry32: a small, fast, seeded PRNG. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uniform(rand: () => number, count: number, scale: number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

export function parameterCount(spec: TinyLmSpec): number {
  const d = spec.hidden;
  const ff = spec.intermediate ?? 4 * d;
  const perLayer = 4 * d * d + 2 * d * ff + 4 * d;
  return 2 * spec.vocabSize * d + spec.maxPositions * d + spec.layers * perLayer + 2 * d;
}

export function buildTinyLm(spec: TinyLmSpec): Model {
  const { hidden: d, heads: H, layers: L, vocabSize: V } = spec;
  if (d % H !== 0) throw new Error(`hidden (${d}) must be divisible by heads (${H})`);
  const D = d / H;
  const ff = spec.intermediate ?? 4 * d;
  const rand = seededRandom(spec.seed);
  const g = new GraphBuilder();
  const F = TensorType.FLOAT;
  const I64 = TensorType.INT64;

  const inputIds = g.input('input_ids', I64, ['batch_size', 'sequence_length']);
  const attentionMask = g.input('attention_mask', I64, ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', I64, ['batch_size', 'sequence_length']);
  const hasPast = spec.layout !== 'no-past';
  const shared = spec.layout === 'shared-prefix';
  const pastNames: { key: string; value: string }[] = [];
  const prefixNames: { key: string; value: string }[] = [];
  for (let l = 0; l < L; l++) {
    if (shared) {
      prefixNames.push({
        key: g.input(`prefix_key_values.${l}.key`, F, [1, H, 'prefix_sequence_length', D]),
        value: g.input(`prefix_key_values.${l}.value`, F, [1, H, 'prefix_sequence_length', D]),
      });
    }
    if (hasPast) {
      pastNames.push({
        key: g.input(`past_key_values.${l}.key`, F, ['batch_size', H, 'past_sequence_length', D]),
        value: g.input(`past_key_values.${l}.value`, F, ['batch_size', H, 'past_sequence_length', D]),
      });
    }
  }

  // Weights.
  const wte = g.floats('wte', [V, d], uniform(rand, V * d, 1));
  const wpe = g.floats('wpe', [spec.maxPositions, d], uniform(rand, spec.maxPositions * d, 0.5));
  const ones = g.floats('ones', [d], new Float32Array(d).fill(1));
  const zeros = g.floats('zeros', [d], new Float32Array(d));
  const lmHead = g.floats('lm_head', [d, V], uniform(rand, d * V, 3 / Math.sqrt(d)));
  const scale = g.scalarFloat('scale', 1 / Math.sqrt(D));
  const splitHeads = g.ints('split_heads', [0, 0, H, D]);
  const mergeHeads = g.ints('merge_heads', [0, 0, d]);

  // Embeddings.
  let x = g.op('Add', [g.op('Gather', [wte, inputIds], { axis: 0 }), g.op('Gather', [wpe, positionIds], { axis: 0 })]);

  // Causal + padding mask over the row's own keys → additive bias [B,1,T,own].
  const idx0 = g.ints('idx0', [0], []);
  const idx1 = g.ints('idx1', [1], []);
  const seqLen = g.op('Gather', [g.op('Shape', [inputIds]), idx1], { axis: 0 });
  const totalLen = g.op('Gather', [g.op('Shape', [attentionMask]), idx1], { axis: 0 });
  const start = g.op('Sub', [totalLen, seqLen]);
  const step = g.ints('step', [1], []);
  const keyPos = g.op('Range', [idx0, totalLen, step]);
  const queryPos = g.op('Unsqueeze', [g.op('Range', [start, totalLen, step]), g.ints('ax1', [1])]);
  const causal = g.op('LessOrEqual', [keyPos, queryPos]);
  const padding = g.op('Unsqueeze', [g.op('Cast', [attentionMask], { to: TensorType.BOOL }), g.ints('ax12', [1, 2])]);
  const allowed = g.op('And', [causal, padding]);
  const bias = g.op('Where', [allowed, g.scalarFloat('zero', 0), g.scalarFloat('masked', -1e9)]);

  let prefixLen: string | undefined;
  if (shared) prefixLen = g.op('Gather', [g.op('Shape', [prefixNames[0].key]), g.ints('idx2', [2])], { axis: 0 });

  const layerNorm = (input: string): string =>
    g.op('LayerNormalization', [input, ones, zeros], { axis: -1, epsilon: 1e-5 }, undefined, ['epsilon']);
  const heads = (input: string): string => g.op('Transpose', [g.op('Reshape', [input, splitHeads])], { perm: [0, 2, 1, 3] });

  for (let l = 0; l < L; l++) {
    const h = layerNorm(x);
    const w = (name: string, rows: number, cols: number): string =>
      g.floats(`l${l}_${name}`, [rows, cols], uniform(rand, rows * cols, 1 / Math.sqrt(rows)));
    const q = heads(g.op('MatMul', [h, w('wq', d, d)]));
    const k = heads(g.op('MatMul', [h, w('wk', d, d)]));
    const v = heads(g.op('MatMul', [h, w('wv', d, d)]));
    let keys = k;
    let values = v;
    if (hasPast) {
      keys = g.op('Concat', [pastNames[l].key, k], { axis: 2 }, [`present.${l}.key`]);
      values = g.op('Concat', [pastNames[l].value, v], { axis: 2 }, [`present.${l}.value`]);
      g.output(`present.${l}.key`, F, ['batch_size', H, 'total_sequence_length', D]);
      g.output(`present.${l}.value`, F, ['batch_size', H, 'total_sequence_length', D]);
    }
    const ownScores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [keys], { perm: [0, 1, 3, 2] })]), scale]), bias]);
    let attended: string;
    if (shared && prefixLen) {
      const p = prefixNames[l];
      const prefixScores = g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [p.key], { perm: [0, 1, 3, 2] })]), scale]);
      const probs = g.op('Softmax', [g.op('Concat', [prefixScores, ownScores], { axis: -1 })], { axis: -1 });
      const lastAxis = g.ints('last_axis', [-1]);
      const prefixProbs = g.op('Slice', [probs, g.ints('zero1', [0]), prefixLen, lastAxis]);
      const ownProbs = g.op('Slice', [probs, prefixLen, g.ints('to_end', [Number.MAX_SAFE_INTEGER]), lastAxis]);
      attended = g.op('Add', [g.op('MatMul', [prefixProbs, p.value]), g.op('MatMul', [ownProbs, values])]);
    } else {
      attended = g.op('MatMul', [g.op('Softmax', [ownScores], { axis: -1 }), values]);
    }
    const merged = g.op('Reshape', [g.op('Transpose', [attended], { perm: [0, 2, 1, 3] }), mergeHeads]);
    x = g.op('Add', [x, g.op('MatMul', [merged, w('wo', d, d)])]);
    const up = g.op('MatMul', [layerNorm(x), w('w1', d, ff)]);
    const act = g.op('Mul', [up, g.op('Sigmoid', [up])]);
    x = g.op('Add', [x, g.op('MatMul', [act, w('w2', ff, d)])]);
  }
  let final = layerNorm(x);
  if (shared) final = keepLastPositions(g, final, g.input('logits_to_keep', I64, []));
  g.op('MatMul', [final, lmHead], {}, ['logits']);
  g.output('logits', F, ['batch_size', 'sequence_length', V]);
  return g.model(`tiny-lm-${spec.layout}`);
}

/**
 * hidden[:, -k:, :] for the scalar input k (0 keeps every position, as in Hugging Face's `logits_to_keep`),
 * so that the LM head only runs where logits are read.
 */
export function keepLastPositions(g: GraphBuilder, hidden: string, keep: string): string {
  const start = g.op('Unsqueeze', [g.op('Neg', [keep]), g.ints('keep_axes0', [0])]);
  return g.op('Slice', [hidden, start, g.ints('keep_end', [Number.MAX_SAFE_INTEGER]), g.ints('keep_axis', [1])]);
}

/** The oracle: logits[b, t, :] = table[input_ids[b, t], :]. No past; attention_mask is accepted and unused. */
export function buildOracleLm(table: Float32Array, vocabSize: number): Model {
  const g = new GraphBuilder();
  const inputIds = g.input('input_ids', TensorType.INT64, ['batch_size', 'sequence_length']);
  g.input('attention_mask', TensorType.INT64, ['batch_size', 'sequence_length']);
  const t = g.floats('logit_table', [vocabSize, vocabSize], table);
  g.op('Gather', [t, inputIds], { axis: 0 }, ['logits']);
  g.output('logits', TensorType.FLOAT, ['batch_size', 'sequence_length', vocabSize]);
  return g.model('oracle-lm');
}

export interface ModelDirOptions {
  dir: string;
  model: Model;
  tokenizer: TokenizerFixture;
  config: Record<string, unknown>;
}

export function writeModelDir({ dir, model, tokenizer, config }: ModelDirOptions): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), encodeModel(model));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer.tokenizerJson));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizer.tokenizerConfig));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  return dir;
}

export interface GenerateOptions extends Partial<TinyLmSpec> {
  dir: string;
  tokenizer?: TokenizerFixtureOptions;
}

/** Writes a seeded tiny LM directory; defaults make a ~0.1M parameter model that runs in milliseconds. */
export function generateTinyModelDir(options: GenerateOptions): { dir: string; spec: TinyLmSpec; tokenizer: TokenizerFixture } {
  const tokenizer = buildTokenizerFixture(options.tokenizer);
  const spec: TinyLmSpec = {
    seed: options.seed ?? 1,
    layout: options.layout ?? 'shared-prefix',
    vocabSize: Math.max(options.vocabSize ?? tokenizer.size, tokenizer.size),
    hidden: options.hidden ?? 32,
    layers: options.layers ?? 2,
    heads: options.heads ?? 4,
    maxPositions: options.maxPositions ?? 4096,
    intermediate: options.intermediate,
  };
  const config = {
    model_type: 'gpt2',
    architectures: ['TinyDecoderLM'],
    vocab_size: spec.vocabSize,
    n_embd: spec.hidden,
    n_layer: spec.layers,
    n_head: spec.heads,
    n_positions: spec.maxPositions,
    eos_token_id: tokenizer.eosId,
    bos_token_id: tokenizer.eosId,
    systemone_layout: spec.layout,
  };
  writeModelDir({ dir: options.dir, model: buildTinyLm(spec), tokenizer, config });
  return { dir: options.dir, spec, tokenizer };
}

/** Writes an oracle directory whose table comes from `fill(inputToken, outputToken)`. */
export function generateOracleModelDir(dir: string, fill: (input: number, output: number) => number): { dir: string; tokenizer: TokenizerFixture } {
  const tokenizer = buildTokenizerFixture();
  const V = tokenizer.size;
  const table = new Float32Array(V * V);
  for (let i = 0; i < V; i++) for (let o = 0; o < V; o++) table[i * V + o] = fill(i, o);
  const config = { model_type: 'oracle', vocab_size: V, n_positions: 1 << 20, eos_token_id: tokenizer.eosId };
  writeModelDir({ dir, model: buildOracleLm(table, V), tokenizer, config });
  return { dir, tokenizer };
}
