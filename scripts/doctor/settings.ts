// What doctor checks, read from the settings the product uses: .runtime/local/local.env (read only, never written
// here) with the shell's environment winning, as scripts/runtime/local-settings.ts does.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface DoctorSettings {
  /** The model gateway, e.g. http://127.0.0.1:5681 (ASSISTANT_GATEWAY_URL, else ASSISTANT_GATEWAY_PORT on loopback). */
  gatewayUrl: string;
  gatewayKey: string;
  /** The agent's chat model (ASSISTANT_LLM_MODEL), without a caller suffix. */
  chatModel: string;
  /** ASSISTANT_MAX_OUTPUT_TOKENS and ASSISTANT_PROMPT_BUDGET_TOKENS, as the gateway reads them. */
  maxOutputTokens: number;
  promptBudgetTokens: number;
  /** ASSISTANT_MODEL_WINDOWS, as the gateway reads it. */
  windowOverrides: string | undefined;
  /** ASSISTANT_OLLAMA_KEEP_ALIVE: the speed probe keeps the model loaded as the gateway does. */
  ollamaKeepAlive: string;
  judge: { url: string; key: string };
  /** Set when ASSISTANT_EMBEDDINGS_BASE_URL (or _GATEWAY_URL) is and ASSISTANT_EMBEDDINGS_MODEL is not off. */
  embeddingsModel: string | null;
  /** Set when ASSISTANT_TRANSCRIPTION_BASE_URL (or _GATEWAY_URL) is and ASSISTANT_TRANSCRIPTION_MODEL is not off. */
  transcriptionModel: string | null;
  /**
   * The assistant's database, for which path recall by meaning takes: ASSISTANT_DATABASE_URL (the Docker stack's
   * doctor service, its password in PGPASSWORD), else run.sh's and the native install's Postgres (POSTGRES_PORT,
   * POSTGRES_PASSWORD, database assistant); null when neither is set.
   */
  database: { url: string; password: string | undefined } | null;
  /** The providers' keys: never used by doctor (the gateway holds them), only kept out of its report. */
  providerKeys: string[];
}

/** A setting doctor cannot run without, or a bad value; the message names the variable. */
export class DoctorSettingError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'DoctorSettingError';
  }
}

export function localEnvFile(env: NodeJS.ProcessEnv): string {
  const dir = env.LOCAL_STATE_DIR ?? path.join(__dirname, '..', '..', '.runtime', 'local');
  return path.join(dir, 'local.env');
}

/** NAME=value lines of local.env (comments and blank lines skipped); an absent file is empty. */
export function readLocalEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match) values[match[1]] = match[2].trim();
  }
  return values;
}

/** local.env, with the environment's non-empty values winning. */
export function mergedSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const merged = readLocalEnv(localEnvFile(env));
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') merged[name] = value;
  return merged;
}

const value = (s: Record<string, string>, name: string): string | undefined => s[name]?.trim() || undefined;

function required(s: Record<string, string>, name: string): string {
  const found = value(s, name);
  if (found === undefined) throw new DoctorSettingError(name, 'is not set (in local.env or the environment)');
  return found;
}

function wholeNumber(s: Record<string, string>, name: string, fallback: number): number {
  const raw = value(s, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new DoctorSettingError(name, `"${raw}" is not a whole number`);
  return Number(raw);
}

function url(s: Record<string, string>, name: string, fallback: string): string {
  const raw = value(s, name) ?? fallback;
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new DoctorSettingError(name, `"${raw}" is not an http(s) URL`);
  return raw.replace(/\/+$/, '');
}

/**
 * An optional model (embeddings, transcription): configured when its provider is (…_BASE_URL, the gateway's
 * setting) or n8n's credential points at the gateway for it (…_GATEWAY_URL, all the Docker stack gives doctor), and
 * its model (…_MODEL) is not "off".
 */
function optionalModel(s: Record<string, string>, prefix: string, fallback: string): string | null {
  const model = value(s, `${prefix}_MODEL`) ?? fallback;
  if (model.toLowerCase() === 'off') return null;
  return value(s, `${prefix}_BASE_URL`) || value(s, `${prefix}_GATEWAY_URL`) ? model : null;
}

export function readDoctorSettings(env: NodeJS.ProcessEnv = process.env): DoctorSettings {
  const s = mergedSettings(env);
  const gatewayPort = wholeNumber(s, 'ASSISTANT_GATEWAY_PORT', 5681);
  const judgePort = wholeNumber(s, 'JUDGE_PORT', 8787);
  return {
    gatewayUrl: url(s, 'ASSISTANT_GATEWAY_URL', `http://127.0.0.1:${gatewayPort}`),
    gatewayKey: required(s, 'ASSISTANT_GATEWAY_KEY'),
    chatModel: required(s, 'ASSISTANT_LLM_MODEL'),
    maxOutputTokens: wholeNumber(s, 'ASSISTANT_MAX_OUTPUT_TOKENS', 2048),
    promptBudgetTokens: wholeNumber(s, 'ASSISTANT_PROMPT_BUDGET_TOKENS', 14_336),
    windowOverrides: value(s, 'ASSISTANT_MODEL_WINDOWS'),
    ollamaKeepAlive: value(s, 'ASSISTANT_OLLAMA_KEEP_ALIVE') ?? '30m',
    judge: {
      url: url(s, 'SYSTEMONE_JUDGE_URL', `http://127.0.0.1:${judgePort}`),
      key: value(s, 'SYSTEMONE_JUDGE_KEY') ?? '',
    },
    embeddingsModel: optionalModel(s, 'ASSISTANT_EMBEDDINGS', 'text-embedding-3-small'),
    transcriptionModel: optionalModel(s, 'ASSISTANT_TRANSCRIPTION', 'whisper-1'),
    database: databaseOf(s),
    providerKeys: PROVIDER_KEYS.map((name) => value(s, name) ?? ''),
  };
}

function databaseOf(s: Record<string, string>): DoctorSettings['database'] {
  const given = value(s, 'ASSISTANT_DATABASE_URL');
  if (given) {
    if (!/^postgres(ql)?:\/\/[^\s/]+/.test(given))
      throw new DoctorSettingError('ASSISTANT_DATABASE_URL', 'is not a postgres:// URL');
    return { url: given, password: value(s, 'PGPASSWORD') };
  }
  const password = value(s, 'POSTGRES_PASSWORD');
  if (password === undefined) return null;
  return { url: `postgres://postgres@127.0.0.1:${wholeNumber(s, 'POSTGRES_PORT', 5433)}/assistant`, password };
}

const PROVIDER_KEYS = [
  'ASSISTANT_LLM_API_KEY',
  'JUDGE_OPENAI_API_KEY',
  'ASSISTANT_EMBEDDINGS_API_KEY',
  'ASSISTANT_TRANSCRIPTION_API_KEY',
];
/** Shorter values are placeholders ("ollama"), not secrets: masking them would mask ordinary words. */
const MIN_SECRET_LENGTH = 12;

/** Every secret in the settings, so that no report line can carry one. */
export function secretsOf(settings: DoctorSettings): string[] {
  return [settings.gatewayKey, settings.judge.key, settings.database?.password ?? '', ...settings.providerKeys].filter(
    (secret) => secret.length >= MIN_SECRET_LENGTH,
  );
}
