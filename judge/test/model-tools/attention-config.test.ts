// What config.json says about attention that the shared-prefix rewrite cannot keep exact, per model family, as
// transformers reads the fields: windows really in use (not Qwen2.5's unused one), soft-capping, ALiBi.
import { describe, expect, it } from 'vitest';
import { attentionRefusal } from '../../src/model-tools/attention-config';

const field = (config: Record<string, unknown>) => attentionRefusal(config)?.field;

describe('attentionRefusal', () => {
  it('refuses a sliding window in use, naming the field that puts it there', () => {
    // Mistral v0.1 and Phi-3-mini-4k: every layer.
    expect(field({ sliding_window: 4096, max_position_embeddings: 32768 })).toBe('sliding_window');
    expect(field({ sliding_window: 2047, max_position_embeddings: 4096 })).toBe('sliding_window');
    // Gemma 3: a pattern; newer configs: layer_types.
    expect(field({ sliding_window: 512, sliding_window_pattern: 6 })).toBe('sliding_window_pattern');
    expect(field({ sliding_window: 512, layer_types: ['sliding_attention', 'full_attention'] })).toBe('layer_types');
    // Qwen2 with the window switched on for the upper layers.
    expect(
      field({ sliding_window: 4096, use_sliding_window: true, max_window_layers: 20, num_hidden_layers: 28 }),
    ).toBe('max_window_layers');
  });

  it('converts a window that is not used', () => {
    // Qwen2.5: sliding_window set, use_sliding_window false.
    expect(
      attentionRefusal({ sliding_window: 32768, use_sliding_window: false, max_window_layers: 21 }),
    ).toBeUndefined();
    expect(
      field({ sliding_window: 4096, use_sliding_window: true, max_window_layers: 28, num_hidden_layers: 28 }),
    ).toBe(undefined);
    expect(field({ sliding_window: 512, layer_types: ['full_attention', 'full_attention'] })).toBeUndefined();
    // Phi-3-mini-128k: a window longer than any sequence.
    expect(field({ sliding_window: 262144, max_position_embeddings: 131072 })).toBeUndefined();
    for (const none of [null, 0, undefined]) expect(field({ sliding_window: none })).toBeUndefined();
    expect(attentionRefusal({ model_type: 'llama', num_hidden_layers: 16 })).toBeUndefined();
  });

  it('refuses soft-capping and ALiBi', () => {
    expect(attentionRefusal({ attn_logit_softcapping: 50 })).toEqual({
      field: 'attn_logit_softcapping',
      reason: 'the model soft-caps its attention scores at 50',
    });
    expect(field({ final_logit_softcapping: 30 })).toBe('final_logit_softcapping');
    expect(field({ attn_logit_softcapping: null, final_logit_softcapping: null })).toBeUndefined();
    expect(field({ alibi: true })).toBe('alibi');
    expect(field({ alibi: false })).toBeUndefined();
    expect(field({ attn_config: { alibi: true } })).toBe('attn_config.alibi');
    expect(field({ model_type: 'bloom' })).toBe('model_type');
    expect(field({ position_embedding_type: 'alibi' })).toBe('position_embedding_type');
  });
});
