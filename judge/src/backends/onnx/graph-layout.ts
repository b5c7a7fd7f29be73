// The graph layouts the ONNX backend feeds, read from a graph's input names (plain code: no ONNX Runtime here).

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

/** What a loaded graph looks like: plain data, sent from the worker to the main thread at start. */
export interface GraphInfo extends GraphShape {
  /** KV heads and head size of past_key_values (0 without past). */
  heads: number;
  headDim: number;
  kvType: 'float32' | 'float16';
  inputNames: string[];
}
