// What the main thread reads of a model directory: the tokenizer, the chat template, and the settings of
// config.json that the token budget needs. The graph itself is loaded by the inference workers (model-dir.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { chatFrame, readChatTemplate, specialTokenVariables, type ChatFrame, type JsonObject } from './chat-template';
import { PromptTokenizer } from './prompt-tokens';

export type { JsonObject } from './chat-template';

export interface ModelFiles {
  dir: string;
  /** config.json as written by the export. */
  config: JsonObject;
  tokenizerConfig: JsonObject;
  tokenizer: Tokenizer;
  /** The chat template's frame around the user message, when the model's prompts use it. */
  chat?: ChatFrame;
  /** How the state, questions and labels become token ids. */
  prompt: PromptTokenizer;
  /** Longest sequence the model holds (positions). */
  maxPositions: number;
  /** The token fed in padding slots. */
  padId: number;
}

export function readJson(dir: string, file: string, required: boolean): JsonObject {
  const path = join(dir, file);
  if (!existsSync(path)) {
    if (required) throw new Error(`model directory ${dir} has no ${file}`);
    return {};
  }
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

export function positiveNumber(...values: unknown[]): number | undefined {
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
  return undefined;
}

/** `chatTemplate: true` for a model directory without a chat template. */
export class MissingChatTemplateError extends Error {}

/**
 * Reads a model directory. `useChatTemplate`: true requires the chat template, false ignores it, undefined uses it
 * when the directory has one (tokenizer_config.json `chat_template`, or chat_template.jinja).
 */
export function readModelFiles(dir: string, useChatTemplate?: boolean): ModelFiles {
  if (!existsSync(join(dir, 'model.onnx'))) throw new Error(`model directory ${dir} has no model.onnx`);
  const config = readJson(dir, 'config.json', true);
  const tokenizerJson = readJson(dir, 'tokenizer.json', true);
  const tokenizerConfig = readJson(dir, 'tokenizer_config.json', false);
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const template = useChatTemplate === false ? undefined : readChatTemplate(dir, tokenizerConfig);
  if (useChatTemplate === true && template === undefined) {
    throw new MissingChatTemplateError(
      `is true, but model directory ${dir} has no chat template (tokenizer_config.json chat_template or chat_template.jinja)`,
    );
  }
  const chat = template === undefined ? undefined : chatFrame(template, specialTokenVariables(tokenizerConfig));
  const prompt = new PromptTokenizer(tokenizerJson, tokenizerConfig, chat);
  const maxPositions =
    positiveNumber(
      config.max_position_embeddings,
      config.n_positions,
      config.n_ctx,
      tokenizerConfig.model_max_length,
    ) ?? Number.MAX_SAFE_INTEGER;
  const eos = Array.isArray(config.eos_token_id) ? (config.eos_token_id as unknown[])[0] : config.eos_token_id;
  const padId = positiveNumber(config.pad_token_id, eos) ?? 0;
  return { dir, config, tokenizerConfig, tokenizer, chat, prompt, maxPositions, padId };
}
