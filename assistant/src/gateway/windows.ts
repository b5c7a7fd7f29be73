// Each model's context window in tokens: the provider's live value where its API reports one, else the operator's
// override (ASSISTANT_MODEL_WINDOWS), else this table, else unknown (a prompt is then sent unchecked and only the
// answer's prompt count can show a cut). Sources: the providers' model pages (OpenAI, Anthropic, Google, DeepSeek,
// Mistral) and the models' config.json max_position_embeddings for open weights.
import { AssistantInputError } from '../errors';

/** Model id patterns (matched against the id without a "provider/" prefix) and their windows. First match wins. */
const KNOWN_WINDOWS: Array<[RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^o[134](-|$)/, 200_000],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^claude-/, 200_000],
  [/^gemini-(1\.5|2\.\d|3)/, 1_048_576],
  [/^deepseek-(chat|reasoner)/, 128_000],
  [/^mistral-(large|medium|small)/, 128_000],
  [/^qwen2\.5/, 32_768],
  [/^qwen3/, 40_960],
  [/^llama3\.[123]/, 131_072],
  [/^llama3(:|$)/, 8_192],
  [/^mistral(:|$)/, 32_768],
  [/^gemma3/, 131_072],
  [/^phi3(:|$)|^phi-3-mini-4k/, 4_096],
];

/** Keys live values may carry in an OpenAI-compatible model list (OpenRouter, vLLM, Gemini, llama.cpp). */
const LIVE_KEYS = ['context_length', 'max_model_len', 'context_window', 'inputTokenLimit', 'n_ctx'];

/** "model=tokens" pairs, comma- or space-separated, from ASSISTANT_MODEL_WINDOWS. */
export function parseWindowOverrides(raw: string | undefined, field = 'ASSISTANT_MODEL_WINDOWS'): Map<string, number> {
  const windows = new Map<string, number>();
  for (const pair of (raw ?? '').split(/[\s,]+/).filter(Boolean)) {
    const at = pair.lastIndexOf('=');
    const tokens = Number(pair.slice(at + 1));
    if (at <= 0 || !/^\d+$/.test(pair.slice(at + 1)) || tokens < 256 || tokens > 10_000_000)
      throw new AssistantInputError(field, `"${pair}" must be model=tokens, tokens a whole number from 256`);
    windows.set(pair.slice(0, at), tokens);
  }
  return windows;
}

/** The table's window for a model id, or null. */
export function knownWindow(model: string): number | null {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  for (const [pattern, tokens] of KNOWN_WINDOWS) if (pattern.test(bare)) return tokens;
  return null;
}

/** A window from one entry of a `/models` list, where the server reports one. */
export function liveWindowOf(entry: Record<string, unknown>): number | null {
  for (const key of LIVE_KEYS) {
    const value = entry[key] ?? (entry.meta as Record<string, unknown> | undefined)?.[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  }
  return null;
}

export type WindowSource = 'live' | 'override' | 'table';

export interface ModelWindow {
  tokens: number;
  source: WindowSource;
}

/** Live first (what the server runs now), then the operator's override, then the table. */
export function chooseWindow(model: string, live: number | null, overrides: Map<string, number>): ModelWindow | null {
  if (live !== null) return { tokens: live, source: 'live' };
  const override = overrides.get(model);
  if (override !== undefined) return { tokens: override, source: 'override' };
  const known = knownWindow(model);
  return known === null ? null : { tokens: known, source: 'table' };
}
