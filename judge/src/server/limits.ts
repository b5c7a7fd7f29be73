// The server's limits: the engine's (questions, options, levels, tokens) plus the request body's size and nesting,
// and how the config file's `limits` block sets them.
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from '../engine/engine';
import { DEFAULT_MAX_JSON_DEPTH } from '../protocol/limits';
import { integerSetting, isObject, type Fail } from '../shared/settings';

export interface ServerLimits extends EngineLimits {
  /** Largest request body in bytes (default 1 MiB); larger → 413. */
  maxBodyBytes: number;
  /** Deepest JSON nesting accepted (default 64); deeper → 400. */
  maxJsonDepth: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  ...DEFAULT_ENGINE_LIMITS,
  maxBodyBytes: 1 << 20,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
};

/** The config's `limits` block: each known limit a whole number ≥ 1, the others at their defaults. */
export function readServerLimits(raw: unknown, fail: Fail): ServerLimits {
  if (raw === undefined) return { ...DEFAULT_SERVER_LIMITS };
  if (!isObject(raw)) throw fail('limits', 'must be an object');
  const limits = { ...DEFAULT_SERVER_LIMITS };
  for (const key of Object.keys(raw)) {
    if (!(key in DEFAULT_SERVER_LIMITS)) throw fail(`limits.${key}`, 'is not a known limit');
    const limit = key as keyof ServerLimits;
    limits[limit] = integerSetting(raw[key], `limits.${key}`, DEFAULT_SERVER_LIMITS[limit], 1, fail);
  }
  if (limits.maxChoiceOptions > 255) throw fail('limits.maxChoiceOptions', 'must be at most 255');
  return limits;
}
