// What `convert` cannot keep exact, read from the model's config.json (Hugging Face transformers' field names). The
// shared-prefix rewrite makes every row attend to the whole prefix with plain softmax attention; a model that limits
// attention to a window, soft-caps its scores or adds position biases (ALiBi) would then answer differently from the
// model itself, without an error, once a state is long enough. Such a config is refused, naming the field.

export interface AttentionRefusal {
  /** The config.json field to blame, e.g. `sliding_window`. */
  field: string;
  reason: string;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Whether any layer attends within a window (transformers' rules per model family). */
function slidingWindowInUse(config: Record<string, unknown>): AttentionRefusal | undefined {
  const window = config.sliding_window;
  if (!isNumber(window) || window <= 0) return undefined;
  // Qwen2 / Qwen2.5: a window is set, but used only with use_sliding_window (false in every released Qwen2.5).
  if (config.use_sliding_window === false) return undefined;
  // A window as long as the longest sequence never cuts anything (Phi-3-mini-128k).
  if (isNumber(config.max_position_embeddings) && window >= config.max_position_embeddings) return undefined;
  const layers = isNumber(config.num_hidden_layers) ? config.num_hidden_layers : undefined;
  if (Array.isArray(config.layer_types)) {
    if (!config.layer_types.includes('sliding_attention')) return undefined;
    return {
      field: 'layer_types',
      reason: `layers attend within a window of ${window} tokens ("sliding_attention" in layer_types)`,
    };
  }
  // Qwen2 with use_sliding_window: layers from max_window_layers on use the window.
  if (config.use_sliding_window === true && isNumber(config.max_window_layers) && layers !== undefined) {
    if (config.max_window_layers >= layers) return undefined;
    return {
      field: 'max_window_layers',
      reason: `layers ${config.max_window_layers} to ${layers - 1} attend within a window of ${window} tokens (use_sliding_window)`,
    };
  }
  if (isNumber(config.sliding_window_pattern) && config.sliding_window_pattern > 1) {
    return {
      field: 'sliding_window_pattern',
      reason: `all but every ${config.sliding_window_pattern}th layer attend within a window of ${window} tokens`,
    };
  }
  // Mistral v0.1, Phi-3-mini-4k, Mixtral and the like: the window applies to every layer.
  return { field: 'sliding_window', reason: `every layer attends within a window of ${window} tokens` };
}

/** The first thing in `config` the shared-prefix rewrite cannot keep exact, or undefined. */
export function attentionRefusal(config: Record<string, unknown>): AttentionRefusal | undefined {
  const window = slidingWindowInUse(config);
  if (window) return window;
  for (const field of ['attn_logit_softcapping', 'final_logit_softcapping']) {
    const cap = config[field];
    if (isNumber(cap) && cap > 0)
      return {
        field,
        reason: `the model soft-caps its ${field.startsWith('attn') ? 'attention scores' : 'logits'} at ${cap}`,
      };
  }
  const attn = config.attn_config as Record<string, unknown> | undefined;
  if (config.alibi === true) return { field: 'alibi', reason: 'the model adds ALiBi position biases to its attention' };
  if (attn && typeof attn === 'object' && attn.alibi === true) {
    return { field: 'attn_config.alibi', reason: 'the model adds ALiBi position biases to its attention' };
  }
  if (config.model_type === 'bloom') {
    return { field: 'model_type', reason: 'BLOOM adds ALiBi position biases to its attention' };
  }
  if (config.position_embedding_type === 'alibi') {
    return { field: 'position_embedding_type', reason: 'the model adds ALiBi position biases to its attention' };
  }
  return undefined;
}
