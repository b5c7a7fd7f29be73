// Small readers for configuration values, shared by every part of the config. Each names the field on a bad value
// through `fail`, so that the caller decides the error class (a ConfigError for the config file).

export type Fail = (field: string, reason: string) => Error;
export type Env = Record<string, string | undefined>;
export type Raw = Record<string, unknown>;

export function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string setting; absent or "" is undefined, or refused when `required`. */
export function stringSetting(value: unknown, field: string, required: boolean, fail: Fail): string | undefined {
  if (value === undefined || value === '') {
    if (required) throw fail(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw fail(field, `must be a string, got ${typeof value}`);
  return value;
}

/** A whole number ≥ `min` (a string of digits from the environment too); absent or "" is `fallback`. */
export function integerSetting(value: unknown, field: string, fallback: number, min: number, fail: Fail): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) {
    throw fail(field, `must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}
