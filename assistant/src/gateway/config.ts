// The gateway's settings, from its environment. Each upstream is the operator's provider for one kind of call; the
// product's callers reach it as <gateway>/<upstream>/v1/… (the chat-model credential uses /llm/v1).
//   ASSISTANT_GATEWAY_KEY          the key callers present (Bearer); required
//   ASSISTANT_GATEWAY_PORT         its loopback port (default 5681); ASSISTANT_GATEWAY_HOST (default 127.0.0.1)
//   ASSISTANT_GATEWAY_DATABASE_URL the assistant's Postgres, for the ledger; required
//   ASSISTANT_LLM_BASE_URL / _API_KEY                     llm: the chat models (agent, experts, heartbeat, briefing)
//   JUDGE_OPENAI_BASE_URL / JUDGE_OPENAI_API_KEY          judge: the judge server's OpenAI-compatible backend
//   ASSISTANT_EMBEDDINGS_BASE_URL / _API_KEY              embeddings
//   ASSISTANT_TRANSCRIPTION_BASE_URL / _API_KEY           transcription
//   ASSISTANT_MODEL_WINDOWS        "model=tokens,…": windows the provider does not report and the table lacks
//   ASSISTANT_MODEL_PRICES        "model=input/cached/output,…" in dollars per million tokens (docs/MODELS.md, caps)
//   ASSISTANT_MAX_OUTPUT_TOKENS    tokens kept free for an answer that names no max_tokens (default 2048)
//   ASSISTANT_PROMPT_BUDGET_TOKENS the agent's largest prompt (default 14336); with the output, an Ollama model's window
//   ASSISTANT_OLLAMA_MAX_CONTEXT   the most an Ollama window may be, for memory (default 32768)
//   ASSISTANT_OLLAMA_KEEP_ALIVE    how long Ollama keeps the model and its prompt cache loaded (default 30m)
//   ASSISTANT_MODEL_SLOTS          calls at once per provider (default: 1 for Ollama, 8 otherwise)
//   ASSISTANT_GATEWAY_TIMEOUT_SECONDS  the longest one call may take upstream (default 900)
import { AssistantInputError } from '../errors';
import { envValue, integerSetting } from '../env-settings';
import { parsePriceOverrides, type ModelPrice } from '../budget/prices';
import { parseWindowOverrides } from './windows';

export const UPSTREAM_NAMES = ['llm', 'judge', 'embeddings', 'transcription'] as const;
export type UpstreamName = (typeof UPSTREAM_NAMES)[number];

export interface UpstreamSettings {
  name: UpstreamName;
  /** The provider's OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
}

export interface GatewaySettings {
  host: string;
  port: number;
  key: string;
  databaseUrl: string;
  upstreams: Partial<Record<UpstreamName, UpstreamSettings>>;
  windowOverrides: Map<string, number>;
  priceOverrides: Map<string, ModelPrice>;
  maxOutputTokens: number;
  promptBudgetTokens: number;
  ollamaMaxContext: number;
  ollamaKeepAlive: string;
  slots: number | null;
  timeoutMs: number;
  /** Test mode only (NODE_ENV=test): the caps' clock runs ahead by the seconds this file holds. */
  testClockFile: string | null;
}

export const UPSTREAM_ENV: Record<UpstreamName, [string, string]> = {
  llm: ['ASSISTANT_LLM_BASE_URL', 'ASSISTANT_LLM_API_KEY'],
  judge: ['JUDGE_OPENAI_BASE_URL', 'JUDGE_OPENAI_API_KEY'],
  embeddings: ['ASSISTANT_EMBEDDINGS_BASE_URL', 'ASSISTANT_EMBEDDINGS_API_KEY'],
  transcription: ['ASSISTANT_TRANSCRIPTION_BASE_URL', 'ASSISTANT_TRANSCRIPTION_API_KEY'],
};

function baseUrlSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AssistantInputError(name, `"${raw}" is not a URL (e.g. http://127.0.0.1:11434/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AssistantInputError(name, `"${raw}" must be an http or https URL`);
  return raw.replace(/\/+$/, '');
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = envValue(env, name);
  if (value === undefined) throw new AssistantInputError(name, 'is required');
  return value;
}

export function readGatewaySettings(env: NodeJS.ProcessEnv = process.env): GatewaySettings {
  const upstreams: GatewaySettings['upstreams'] = {};
  for (const name of UPSTREAM_NAMES) {
    const [urlName, keyName] = UPSTREAM_ENV[name];
    const baseUrl = baseUrlSetting(env, urlName);
    if (baseUrl) upstreams[name] = { name, baseUrl, apiKey: envValue(env, keyName) ?? '' };
  }
  const key = required(env, 'ASSISTANT_GATEWAY_KEY');
  if (key.length < 16) throw new AssistantInputError('ASSISTANT_GATEWAY_KEY', 'must be at least 16 characters');
  const keepAlive = envValue(env, 'ASSISTANT_OLLAMA_KEEP_ALIVE') ?? '30m';
  if (!/^(-1|0|\d+(\.\d+)?(ms|s|m|h))$/.test(keepAlive))
    throw new AssistantInputError(
      'ASSISTANT_OLLAMA_KEEP_ALIVE',
      `"${keepAlive}" must be a duration like 30m, 1h or -1`,
    );
  return {
    host: envValue(env, 'ASSISTANT_GATEWAY_HOST') ?? '127.0.0.1',
    port: integerSetting(env, 'ASSISTANT_GATEWAY_PORT', 5681, 0, 65535),
    key,
    databaseUrl: required(env, 'ASSISTANT_GATEWAY_DATABASE_URL'),
    upstreams,
    windowOverrides: parseWindowOverrides(envValue(env, 'ASSISTANT_MODEL_WINDOWS')),
    priceOverrides: parsePriceOverrides(envValue(env, 'ASSISTANT_MODEL_PRICES')),
    maxOutputTokens: integerSetting(env, 'ASSISTANT_MAX_OUTPUT_TOKENS', 2048, 16, 1_000_000),
    promptBudgetTokens: integerSetting(env, 'ASSISTANT_PROMPT_BUDGET_TOKENS', 14_336, 1024, 10_000_000),
    ollamaMaxContext: integerSetting(env, 'ASSISTANT_OLLAMA_MAX_CONTEXT', 32_768, 2048, 10_000_000),
    ollamaKeepAlive: keepAlive,
    slots: envValue(env, 'ASSISTANT_MODEL_SLOTS') ? integerSetting(env, 'ASSISTANT_MODEL_SLOTS', 1, 1, 256) : null,
    timeoutMs: integerSetting(env, 'ASSISTANT_GATEWAY_TIMEOUT_SECONDS', 900, 5, 86_400) * 1000,
    testClockFile: testClockFile(env),
  };
}

function testClockFile(env: NodeJS.ProcessEnv): string | null {
  const file = envValue(env, 'ASSISTANT_GATEWAY_TEST_CLOCK_FILE');
  if (file === undefined) return null;
  if (env.NODE_ENV !== 'test')
    throw new AssistantInputError('ASSISTANT_GATEWAY_TEST_CLOCK_FILE', 'is honoured only in test mode (NODE_ENV=test)');
  return file;
}
