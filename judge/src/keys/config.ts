// The `keys` and `price` sections of the judge configuration, overlaid by environment variables:
//
//   JUDGE_KEYS_FILE              a JSON key file (one server; the CLI and the server share it)
//   JUDGE_KEYS_DATABASE_URL      postgres://… (replicas share keys and usage)
//   JUDGE_KEY_CACHE_TTL_MS       how long a server trusts what it read about a key (default 1000; 0 = every request)
//   JUDGE_PRICE_INPUT_PER_MILLION, JUDGE_PRICE_OUTPUT_PER_MILLION, JUDGE_PRICE_CURRENCY   shown with usage
//
// An environment variable naming a store replaces the file's choice. Errors name the field or variable.
import { readFileSync } from 'node:fs';

export type KeyStoreConfig = { kind: 'file'; file: string } | { kind: 'postgres'; databaseUrl: string };

export interface KeysSettings {
  /** Where keys made by `systemone-judge keys` live; absent: only JUDGE_API_KEYS / apiKeys (usage in memory). */
  store?: KeyStoreConfig;
  /** Milliseconds a server reuses a key it read (revocations and other replicas' usage show after this). */
  cacheTtlMs: number;
}

export interface Price {
  currency: string;
  /** Per million input tokens. */
  inputPerMillion: number;
  /** Per million output tokens (the judge generates none; kept for the record). */
  outputPerMillion: number;
}

/** The seed's price: 0.042 USD per million input tokens, output free. */
export const DEFAULT_PRICE: Price = { currency: 'USD', inputPerMillion: 0.042, outputPerMillion: 0 };
export const DEFAULT_KEY_CACHE_TTL_MS = 1000;

type Env = Record<string, string | undefined>;
type Raw = Record<string, unknown>;
/** Makes the error for a bad value (config.ts passes one building its ConfigError). */
export type Fail = (field: string, reason: string) => Error;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);

function section(raw: unknown, field: string, known: string[], fail: Fail): Raw {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw fail(field, 'must be an object');
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) throw fail(`${field}.${key}`, `is not a known setting (${known.join(', ')})`);
  }
  return raw;
}

function text(value: unknown, field: string, fail: Fail): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw fail(field, `must be a string, got ${typeof value}`);
  return value;
}

function number(value: unknown, field: string, fallback: number, integer: boolean, fail: Fail): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw fail(field, `must be ${integer ? 'an integer' : 'a number'} ≥ 0, got ${JSON.stringify(value)}`);
  }
  return n;
}

function storeFrom(file: string | undefined, databaseUrl: string | undefined, names: [string, string], fail: Fail) {
  if (file !== undefined && databaseUrl !== undefined) {
    throw fail(`${names[0]} / ${names[1]}`, 'name one key store, not both');
  }
  if (databaseUrl !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw fail(names[1], 'must be a postgres:// or postgresql:// URL');
    }
    return { kind: 'postgres' as const, databaseUrl };
  }
  return file === undefined ? undefined : { kind: 'file' as const, file };
}

export function readKeysSettings(raw: unknown, env: Env, fail: Fail): KeysSettings {
  const file = section(raw, 'keys', ['file', 'databaseUrl', 'cacheTtlMs'], fail);
  const envFile = text(env.JUDGE_KEYS_FILE, 'JUDGE_KEYS_FILE', fail);
  const envUrl = text(env.JUDGE_KEYS_DATABASE_URL, 'JUDGE_KEYS_DATABASE_URL', fail);
  const store =
    envFile !== undefined || envUrl !== undefined
      ? storeFrom(envFile, envUrl, ['JUDGE_KEYS_FILE', 'JUDGE_KEYS_DATABASE_URL'], fail)
      : storeFrom(
          text(file.file, 'keys.file', fail),
          text(file.databaseUrl, 'keys.databaseUrl', fail),
          ['keys.file', 'keys.databaseUrl'],
          fail,
        );
  const ttlField = env.JUDGE_KEY_CACHE_TTL_MS ? 'JUDGE_KEY_CACHE_TTL_MS' : 'keys.cacheTtlMs';
  const cacheTtlMs = number(
    env.JUDGE_KEY_CACHE_TTL_MS || file.cacheTtlMs,
    ttlField,
    DEFAULT_KEY_CACHE_TTL_MS,
    true,
    fail,
  );
  return store ? { store, cacheTtlMs } : { cacheTtlMs };
}

export function readPrice(raw: unknown, env: Env, fail: Fail): Price {
  const file = section(raw, 'price', ['currency', 'inputPerMillion', 'outputPerMillion'], fail);
  const pick = (envName: string, field: string): [unknown, string] =>
    env[envName] ? [env[envName], envName] : [file[field], `price.${field}`];
  const [input, inputField] = pick('JUDGE_PRICE_INPUT_PER_MILLION', 'inputPerMillion');
  const [output, outputField] = pick('JUDGE_PRICE_OUTPUT_PER_MILLION', 'outputPerMillion');
  const [currency, currencyField] = pick('JUDGE_PRICE_CURRENCY', 'currency');
  return {
    currency: text(currency, currencyField, fail) ?? DEFAULT_PRICE.currency,
    inputPerMillion: number(input, inputField, DEFAULT_PRICE.inputPerMillion, false, fail),
    outputPerMillion: number(output, outputField, DEFAULT_PRICE.outputPerMillion, false, fail),
  };
}

/** For the `keys` CLI: the keys and price sections of an optional config file, overlaid by the environment. */
export function loadKeysSettings(
  options: { file?: string; env?: Env },
  fail: Fail,
): { keys: KeysSettings; price: Price } {
  let raw: Raw = {};
  if (options.file) {
    let content: string;
    try {
      content = readFileSync(options.file, 'utf8');
    } catch (error) {
      throw fail('file', `cannot read ${options.file}: ${(error as Error).message}`);
    }
    try {
      const parsed: unknown = JSON.parse(content);
      if (!isObject(parsed)) throw new Error('the root is not an object');
      raw = parsed;
    } catch (error) {
      throw fail('file', `${options.file} is not a JSON object: ${(error as Error).message}`);
    }
  }
  const env = options.env ?? process.env;
  return { keys: readKeysSettings(raw.keys, env, fail), price: readPrice(raw.price, env, fail) };
}
