// The graph layouts the ONNX backend feeds, read from a graph's input names (plain code: no ONNX Runtime here).

/**
 * shared-prefix: prefix_key_values.{l}.* broadcast to every row + each row's own past (one batch for all questions);
 * plain-past: HF past_key_values.{l}.* only (state once, then questions one by one against it);
 * no-past: one full pass per question.
 */
export type GraphLayout = 'shared-prefix' | 'plain-past' | 'no-past';

const KNOWN_INPUTS = new Set([
  'input_ids',
  'attention_mask',
  'position_ids',
  'use_cache_branch',
  'logits_to_keep',
  'logits_indices',
  'own_attention_bias',
]);

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

/** What a loaded graph looks like: plain data, sent from the worker to the main thread at start. */
export interface GraphInfo extends GraphShape {
  /** KV heads and head size of past_key_values (0 without past). */
  heads: number;
  headDim: number;
  kvType: 'float32' | 'float16';
  logitsType: 'float32' | 'float16';
  inputNames: string[];
  /** Several questions may share a batch row: own_attention_bias keeps each to itself, logits_indices reads them. */
  packing: boolean;
  /** How the loaded graph's logits were limited when it was loaded, or why they could not be. */
  logitsNote?: string;
  /**
   * The graph's fused attention op, when it has one (an ONNX Runtime contrib op, `com.microsoft.*Attention*`, e.g.
   * onnxruntime-genai's GroupQueryAttention): such an op finds each row's keys from the mask's row sums, assuming
   * no left padding, so the backend never feeds it a padded batch (labels.ts, unpaddedGroups).
   */
  fusedAttention?: string;
  /** What quantized weights the graph holds (model-tools/quantization.ts), for serve's line. */
  weightNotes?: string[];
  /** Its scores shift with what is batched beside them (int8 dynamic quantization). */
  batchDependent?: boolean;
}

/** True when a graph can take packed rows (see GraphInfo.packing). */
export const canPack = (inputNames: readonly string[]): boolean =>
  inputNames.includes('own_attention_bias') && inputNames.includes('logits_indices');

const PATHS: Record<GraphLayout, string> = {
  'shared-prefix':
    'shared-prefix path: the graph takes prefix_key_values.* beside past_key_values.*, so the state is encoded once and every question runs in one batch over that one state KV',
  'plain-past':
    'plain-past path: the graph takes past_key_values.* but no prefix_key_values.*, so the state is encoded once and the questions run one after another against its KV (`systemone-judge convert` makes it shared-prefix when the graph allows)',
  'no-past':
    'no-past path: the graph takes no past_key_values.*, so every question is one full pass over state + question',
};

/** The path a layout gets, and why, in one sentence. */
export function layoutPath(layout: GraphLayout): string {
  return PATHS[layout];
}

/**
 * Which path a loaded graph gets and why, in one line for `serve` (and the same words `convert` uses): the layout
 * from its inputs, then what else the graph is (merged decoder, grouped-query attention, float16, logits_to_keep).
 */
export function explainLayout(graph: GraphInfo, config: Record<string, unknown> = {}): string {
  const details: string[] = [];
  if (graph.inputNames.includes('use_cache_branch'))
    details.push('merged decoder: use_cache_branch is fed true, so its with-past branch runs');
  const attentionHeads = config.num_attention_heads ?? config.n_head;
  if (graph.layout !== 'no-past' && typeof attentionHeads === 'number' && graph.heads < attentionHeads)
    details.push(`grouped-query attention: ${graph.heads} KV heads for ${attentionHeads} attention heads`);
  if (graph.layout !== 'no-past' && graph.kvType === 'float16') details.push('float16 KV');
  if (graph.logitsType === 'float16') details.push('float16 logits (normalised in float32)');
  if (graph.inputNames.includes('logits_to_keep'))
    details.push('logits_to_keep: the LM head runs only on the positions read');
  if (graph.logitsNote) details.push(graph.logitsNote);
  else if (graph.inputNames.includes('logits_indices'))
    details.push('logits_indices: the LM head runs only on the positions read');
  if (graph.fusedAttention)
    details.push(
      `fused ${graph.fusedAttention} (ONNX Runtime contrib op): label rows run unpadded (one-token rows together, longer ones one by one)`,
    );
  if (graph.layout === 'shared-prefix' && graph.packing)
    details.push('packing: short questions share a batch row, each attending only to itself (own_attention_bias)');
  details.push(...(graph.weightNotes ?? []));
  return details.length ? `${PATHS[graph.layout]}; ${details.join('; ')}` : PATHS[graph.layout];
}
