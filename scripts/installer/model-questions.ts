// The installer's questions about the models beside the chat model: the judge (its provider and model, checked with
// one real judge call), embeddings for recall by meaning, and speech to text for voice messages (each a model name, or
// off; checked with one real call). Each defaults to what the chosen provider offers; the settings the product reads
// (the judge's JUDGE_OPENAI_*, the gateway's ASSISTANT_EMBEDDINGS_* and ASSISTANT_TRANSCRIPTION_*) follow from them.
import {
  AI_PROVIDERS,
  type AssistantInputError,
  providerById,
  requireChatModel,
  type AiProvider,
} from 'assistant-core';
import type { Answers, Question } from './questions';

/** A model that switches a feature off. */
export const OFF = 'off';

/** A suitable judge model per provider: small and fast; where the provider returns logprobs, its answers are calibrated. */
export const JUDGE_MODELS: Readonly<Record<string, string>> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash',
  mistral: 'mistral-small-latest',
  deepseek: 'deepseek-chat',
  openrouter: 'openai/gpt-4o-mini',
  ollama: 'qwen2.5:7b-instruct',
};

/** The embeddings model on by default, for providers that offer one (Ollama's only when the operator names it). */
export const EMBEDDINGS_MODELS: Readonly<Record<string, string>> = {
  openai: 'text-embedding-3-small',
  mistral: 'mistral-embed',
};

/** The speech-to-text model on by default, for providers that offer one. */
export const VOICE_MODELS: Readonly<Record<string, string>> = { openai: 'whisper-1' };

/** Providers without an OpenAI-compatible /audio/transcriptions endpoint: voice is refused, not tried. */
const NO_VOICE = new Set(['anthropic', 'deepseek', 'ollama']);

export const chatProvider = (answers: Answers): AiProvider =>
  providerById(answers.ASSISTANT_PROVIDER ?? '') ?? AI_PROVIDERS[0];

export const judgeProvider = (answers: Answers): AiProvider =>
  providerById(answers.JUDGE_PROVIDER ?? '') ?? chatProvider(answers);

const sameProvider = (answers: Answers): boolean => judgeProvider(answers).id === chatProvider(answers).id;

/** The judge's key: the chat key when both use the same provider; undefined while that key is not accepted. */
const judgeKey = (answers: Answers): string | undefined =>
  sameProvider(answers) ? answers.ASSISTANT_LLM_API_KEY : answers.JUDGE_OPENAI_API_KEY;

/** A key the checks can use; without one (refused above, non-interactive) a model is not tried. */
function acceptedKey(key: string | undefined): string {
  if (key === undefined) throw new Error('not tried: the API key above was not accepted');
  return key;
}

function modelName(value: string, field: string): string {
  try {
    return requireChatModel(value.trim(), field);
  } catch (error) {
    throw new Error((error as AssistantInputError).reason);
  }
}

const isOff = (value: string | undefined): boolean => (value ?? '').trim().toLowerCase() === OFF;

export const JUDGE_QUESTIONS: Question[] = [
  {
    key: 'JUDGE_PROVIDER',
    prompt: (answers) =>
      `The judge's AI provider (it answers the yes/no and choice questions of checks, the Analyst and the Judge node; ` +
      `${AI_PROVIDERS.map((entry) => entry.id).join(', ')}; the chat's: ${chatProvider(answers).id})`,
    defaultValue: (answers) => chatProvider(answers).id,
    check: async (value) => {
      const id = value.trim().toLowerCase();
      if (!providerById(id))
        throw new Error(`"${value}" is not one of ${AI_PROVIDERS.map((entry) => entry.id).join(', ')}`);
      return id;
    },
  },
  {
    key: 'JUDGE_OPENAI_API_KEY',
    when: (answers) => !sameProvider(answers),
    prompt: (answers) => `${judgeProvider(answers).name} API key for the judge (${judgeProvider(answers).keyHint})`,
    defaultValue: (answers) => (judgeProvider(answers).keyRequired ? undefined : 'local'),
    secret: true,
    check: async (value, answers, checks) => {
      const key = value.trim();
      if (/\s/.test(key)) throw new Error('a key has no spaces');
      const result = await checks.checkKey(judgeProvider(answers), key);
      if (!result.ok) throw new Error(result.message);
      return key;
    },
  },
  {
    key: 'JUDGE_OPENAI_MODEL',
    prompt: () => "The judge's model (one that returns logprobs gives calibrated answers)",
    defaultValue: (answers) => JUDGE_MODELS[judgeProvider(answers).id] ?? judgeProvider(answers).exampleModel,
    check: async (value, answers, checks) => {
      const model = modelName(value, 'model');
      const result = await checks.judgeCall(judgeProvider(answers), acceptedKey(judgeKey(answers)), model);
      if (!result.ok) throw new Error(`the judge's test question failed: ${result.message}`);
      return model;
    },
  },
];

export const FEATURE_QUESTIONS: Question[] = [
  {
    key: 'ASSISTANT_EMBEDDINGS_MODEL',
    prompt: (answers) =>
      `Embeddings model, for recalling memories by meaning (${OFF}: by words only` +
      (chatProvider(answers).id === 'ollama' ? '; e.g. nomic-embed-text once pulled into Ollama)' : ')'),
    defaultValue: (answers) => EMBEDDINGS_MODELS[chatProvider(answers).id] ?? OFF,
    check: async (value, answers, checks) => {
      answers.ASSISTANT_EMBEDDING_DIMENSIONS = '';
      if (isOff(value) || value.trim() === '') return OFF;
      const model = modelName(value, 'model');
      const key = acceptedKey(answers.ASSISTANT_LLM_API_KEY);
      const result = await checks.embeddingsCall(chatProvider(answers), key, model);
      if (!result.ok) throw new Error(`the test embedding failed: ${result.message}`);
      // The test embedding's size: what pgvector's index is made for at install (assistant/src/storage/vector-index.ts).
      answers.ASSISTANT_EMBEDDING_DIMENSIONS = /^(\d+) dimensions/.exec(result.detail ?? '')?.[1] ?? '';
      return model;
    },
  },
  {
    key: 'ASSISTANT_TRANSCRIPTION_MODEL',
    prompt: () => `Speech-to-text model, for voice messages (${OFF}: none)`,
    defaultValue: (answers) => VOICE_MODELS[chatProvider(answers).id] ?? OFF,
    check: async (value, answers, checks) => {
      if (isOff(value) || value.trim() === '') return OFF;
      const provider = chatProvider(answers);
      if (NO_VOICE.has(provider.id)) throw new Error(`${provider.name} offers no speech to text: answer ${OFF}`);
      const model = modelName(value, 'model');
      const key = acceptedKey(answers.ASSISTANT_LLM_API_KEY);
      const result = await checks.transcriptionCall(provider, key, model);
      if (!result.ok) throw new Error(`the test transcription failed: ${result.message}`);
      return model;
    },
  },
];

/**
 * The settings that follow from the answers: the judge's upstream (the product's judge runs on an OpenAI-compatible
 * server, through the gateway), and the gateway's embeddings and transcription upstreams, empty when off.
 */
export function modelSettings(answers: Answers): Answers {
  const chat = chatProvider(answers);
  const key = answers.ASSISTANT_LLM_API_KEY ?? '';
  const on = (setting: string | undefined) => Boolean(setting) && !isOff(setting);
  const embeddings = on(answers.ASSISTANT_EMBEDDINGS_MODEL);
  const voice = on(answers.ASSISTANT_TRANSCRIPTION_MODEL);
  return {
    JUDGE_BACKEND: 'openai',
    JUDGE_OPENAI_BASE_URL: judgeProvider(answers).baseUrl,
    JUDGE_OPENAI_API_KEY: judgeKey(answers) ?? '',
    ASSISTANT_EMBEDDINGS_BASE_URL: embeddings ? chat.baseUrl : '',
    ASSISTANT_EMBEDDINGS_API_KEY: embeddings ? key : '',
    ASSISTANT_EMBEDDING_DIMENSIONS: embeddings ? (answers.ASSISTANT_EMBEDDING_DIMENSIONS ?? '') : '',
    ASSISTANT_TRANSCRIPTION_BASE_URL: voice ? chat.baseUrl : '',
    ASSISTANT_TRANSCRIPTION_API_KEY: voice ? key : '',
  };
}

/** The base URLs among the settings (a test's or a proxy's base URL replaces the providers'; containers map them). */
export const MODEL_BASE_URLS = [
  'ASSISTANT_LLM_BASE_URL',
  'JUDGE_OPENAI_BASE_URL',
  'ASSISTANT_EMBEDDINGS_BASE_URL',
  'ASSISTANT_TRANSCRIPTION_BASE_URL',
];
