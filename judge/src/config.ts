// Configuration: a JSON file (optional) overlaid by environment variables. Secrets come from env (or the file,
// which should then be private); they are never logged. Every bad value is reported naming its field.
//
// Environment:
//   JUDGE_API_KEYS        comma-separated keys that callers send as "Authorization: Bearer <key>"
//   JUDGE_HOST, JUDGE_PORT
//   JUDGE_BACKEND         openai | remote | onnx (default: the file's backend.kind)
//   JUDGE_OPENAI_BASE_URL, JUDGE_OPENAI_API_KEY, JUDGE_OPENAI_MODEL, JUDGE_OPENAI_MODEL_ID
//   JUDGE_REMOTE_BASE_URL, JUDGE_REMOTE_API_KEY
//   JUDGE_ALIASES         "jev-latest=<pinned id>,other=<pinned id>"
//   JUDGE_ADMISSION_CONCURRENCY, JUDGE_ADMISSION_QUEUE_LENGTH, JUDGE_ADMISSION_DEADLINE_MS (replace `admission.*`)
//   JUDGE_CALIBRATION     path of a calibration.json from `systemone-judge calibrate` (replaces `calibration`)
//   JUDGE_PLAYGROUND_OPEN true | false: the playground judges without a key (default: on loopback only)
//   JUDGE_KEYS_FILE | JUDGE_KEYS_DATABASE_URL, JUDGE_KEY_CACHE_TTL_MS, JUDGE_PRICE_*: keys/config.ts
//   JUDGE_CONSOLE_PASSWORD the operator's console's sign-in password (server/console/settings.ts)
import { readFileSync } from 'node:fs';
import type { BackendConfig } from './backends';
import { backendKindList, isBackendKind, type BackendKind } from './backends/kinds';
import { OnnxConfigError, parseOnnxBackendOptions } from './backends/onnx/options';
import { parseOpenAIBackendOptions } from './backends/openai/options';
import { parseRemoteBackendOptions } from './backends/remote/options';
import type { Temperatures } from './engine/readout';
import { applyCalibration, type LoadedCalibration } from './calibration/file';
import { readPlaygroundSettings, type PlaygroundSettings } from './server/playground/settings';
import { readConsoleSettings, type ConsoleSettings } from './server/console/settings';
import { readKeysSettings, readPrice, type KeysSettings, type Price } from './keys/config';
import { DEFAULT_ADMISSION, type AdmissionSettings } from './server/admission';
import { readServerLimits, type ServerLimits } from './server/limits';
import { FieldError } from './shared/field-error';
import { integerSetting, isObject, stringSetting, type Env, type Raw } from './shared/settings';

export interface JudgeConfig {
  host: string;
  port: number;
  apiKeys: string[];
  backend: BackendConfig;
  /** Moving names → pinned ids, on top of the default ones (`<name>-latest`, `jev-latest`; engine/aliases.ts). */
  aliases?: Record<string, string>;
  limits: ServerLimits;
  temperatures: Temperatures;
  /** The calibration file whose temperatures `temperatures` includes (config `calibration`, JUDGE_CALIBRATION). */
  calibration?: LoadedCalibration;
  playground: PlaygroundSettings;
  /** The operator's console (config `console`, JUDGE_CONSOLE_PASSWORD). */
  console: ConsoleSettings;
  /** Milliseconds to let in-flight requests finish on shutdown (default 10 000). */
  shutdownGraceMs: number;
  /** The admission queue: requests judged at once, requests waiting, per-request deadline (server/admission.ts). */
  admission: AdmissionSettings;
  /** The key store of `systemone-judge keys` (config `keys`, JUDGE_KEYS_FILE / JUDGE_KEYS_DATABASE_URL). */
  keys: KeysSettings;
  /** The price usage is shown at (config `price`, JUDGE_PRICE_*). */
  price: Price;
}

export class ConfigError extends FieldError {
  constructor(field: string, reason: string) {
    super(field, reason, `config ${field}`);
  }
}

const configError = (field: string, reason: string) => new ConfigError(field, reason);

const str = (value: unknown, field: string, required: boolean) => stringSetting(value, field, required, configError);

const positiveInt = (value: unknown, field: string, fallback: number, min = 1) =>
  integerSetting(value, field, fallback, min, configError);

function parsePort(value: unknown, field: string): number {
  const port = positiveInt(value, field, 8787, 0);
  if (port > 65535) throw new ConfigError(field, `must be 0..65535, got ${port}`);
  return port;
}

function parseAliasList(text: string, field: string): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [alias, target, ...rest] = pair.split('=').map((s) => s.trim());
    if (!alias || !target || rest.length > 0) throw new ConfigError(field, `"${pair}" is not alias=<pinned id>`);
    aliases[alias] = target;
  }
  return aliases;
}

/** Each backend kind's options from the config's backend block and the environment. */
const BACKEND_PARSERS: Record<BackendKind, (file: Raw, env: Env) => BackendConfig> = {
  openai: (file, env) => ({ kind: 'openai', ...parseOpenAIBackendOptions(file, env, configError) }),
  remote: (file, env) => ({ kind: 'remote', ...parseRemoteBackendOptions(file, env, configError) }),
  onnx: (file) => {
    // Checked now, with the rest of the config: settings, and that every model directory holds its files.
    try {
      return { kind: 'onnx', ...parseOnnxBackendOptions(file) };
    } catch (error) {
      if (error instanceof OnnxConfigError) throw new ConfigError(error.field, error.reason);
      throw error;
    }
  },
};

function readBackend(raw: unknown, env: Env): BackendConfig {
  const file = isObject(raw) ? raw : {};
  if (raw !== undefined && !isObject(raw)) throw new ConfigError('backend', 'must be an object');
  const kind = env.JUDGE_BACKEND || file.kind;
  if (isBackendKind(kind)) return BACKEND_PARSERS[kind](file, env);
  if (kind === undefined)
    throw new ConfigError('backend.kind', `is required (${backendKindList()}; or set JUDGE_BACKEND)`);
  throw new ConfigError('backend.kind', `must be ${backendKindList()}, got ${JSON.stringify(kind)}`);
}

function readTemperatures(raw: unknown): Temperatures {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new ConfigError('temperatures', 'must be an object');
  const temperatures: Temperatures = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key !== 'noul' && key !== 'choice' && key !== 'score')
      throw new ConfigError(`temperatures.${key}`, 'must be noul, choice or score');
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
      throw new ConfigError(`temperatures.${key}`, `must be a number > 0, got ${JSON.stringify(value)}`);
    }
    temperatures[key] = value;
  }
  return temperatures;
}

const ADMISSION_ENV: Record<keyof AdmissionSettings, string> = {
  concurrency: 'JUDGE_ADMISSION_CONCURRENCY',
  queueLength: 'JUDGE_ADMISSION_QUEUE_LENGTH',
  deadlineMs: 'JUDGE_ADMISSION_DEADLINE_MS',
};

/** `admission` from the file, each setting replaced by its environment variable; errors name where it came from. */
function readAdmission(raw: unknown, env: Env): AdmissionSettings {
  if (raw !== undefined && !isObject(raw)) throw new ConfigError('admission', 'must be an object');
  const file = raw ?? {};
  for (const key of Object.keys(file)) {
    if (!(key in DEFAULT_ADMISSION)) throw new ConfigError(`admission.${key}`, 'is not an admission setting');
  }
  const setting = (key: keyof AdmissionSettings, min: number): number => {
    const fromEnv = env[ADMISSION_ENV[key]];
    const field = fromEnv !== undefined && fromEnv !== '' ? ADMISSION_ENV[key] : `admission.${key}`;
    return positiveInt(fromEnv || file[key], field, DEFAULT_ADMISSION[key], min);
  };
  return {
    concurrency: setting('concurrency', 1),
    queueLength: setting('queueLength', 0),
    deadlineMs: setting('deadlineMs', 1),
  };
}

export function parseConfig(raw: unknown, env: Env = {}): JudgeConfig {
  if (!isObject(raw)) throw new ConfigError('(root)', 'must be a JSON object');
  const keysFromEnv = env.JUDGE_API_KEYS?.split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  let apiKeys = keysFromEnv;
  if (!apiKeys || apiKeys.length === 0) {
    if (
      raw.apiKeys !== undefined &&
      (!Array.isArray(raw.apiKeys) || !raw.apiKeys.every((k) => typeof k === 'string' && k))
    ) {
      throw new ConfigError('apiKeys', 'must be a list of non-empty strings');
    }
    apiKeys = (raw.apiKeys as string[] | undefined) ?? [];
  }
  const keys = readKeysSettings(raw.keys, env, configError);
  if (apiKeys.length === 0 && !keys.store) {
    throw new ConfigError(
      'apiKeys',
      'no API key configured: set JUDGE_API_KEYS or apiKeys, or a key store (JUDGE_KEYS_FILE, JUDGE_KEYS_DATABASE_URL) ' +
        '(every call is authenticated)',
    );
  }

  let aliases: Record<string, string> | undefined;
  if (env.JUDGE_ALIASES) aliases = parseAliasList(env.JUDGE_ALIASES, 'JUDGE_ALIASES');
  else if (raw.aliases !== undefined) {
    if (!isObject(raw.aliases) || !Object.values(raw.aliases).every((v) => typeof v === 'string' && v)) {
      throw new ConfigError('aliases', 'must map alias names to pinned model ids');
    }
    aliases = raw.aliases as Record<string, string>;
  }

  return {
    host: str(env.JUDGE_HOST ?? raw.host, 'host', false) ?? '127.0.0.1',
    port: parsePort(env.JUDGE_PORT ?? raw.port, 'port'),
    apiKeys,
    backend: readBackend(raw.backend, env),
    aliases,
    limits: readServerLimits(raw.limits, configError),
    ...applyCalibration(readTemperatures(raw.temperatures), env.JUDGE_CALIBRATION ?? raw.calibration, configError),
    playground: readPlaygroundSettings(raw.playground, env, configError),
    console: readConsoleSettings(raw.console, env, configError),
    shutdownGraceMs: positiveInt(raw.shutdownGraceMs, 'shutdownGraceMs', 10_000, 0),
    admission: readAdmission(raw.admission, env),
    keys,
    price: readPrice(raw.price, env, configError),
  };
}

/** Read the optional JSON config file, then overlay the environment. */
export function loadConfig(options: { file?: string; env?: Env } = {}): JudgeConfig {
  let raw: unknown = {};
  if (options.file) {
    let text: string;
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (error) {
      throw new ConfigError('file', `cannot read ${options.file}: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError('file', `${options.file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  return parseConfig(raw, options.env ?? process.env);
}
