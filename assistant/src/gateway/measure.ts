// How long a prompt is, before it is sent: the server's own tokenizer where it exposes one (vLLM's and SGLang's
// POST /tokenize with the chat messages, llama.cpp's POST /tokenize with text), otherwise an estimate from its
// characters. The estimate gives two bounds: `upper` (characters / 3, conservative: a prompt is refused by it) and
// `lower` (characters / 6: a provider reporting fewer prompt tokens than that has cut the prompt).
import type { ChatRequest } from './openai-types';

export interface PromptMeasure {
  /** The best figure: the tokenizer's count, or the conservative estimate. */
  tokens: number;
  /** Below this, a provider's reported prompt count means the prompt was cut. */
  lower: number;
  by: 'tokenizer' | 'estimate';
}

const UPPER_CHARS_PER_TOKEN = 3;
const LOWER_CHARS_PER_TOKEN = 6;
/** Per message, what chat templates add around it (role markers, separators). */
const TEMPLATE_TOKENS_PER_MESSAGE = 4;

/** What the model reads: the messages' text and the tool schemas (chat templates render both into the prompt). */
export function promptText(request: Pick<ChatRequest, 'messages' | 'tools'>): string {
  const parts: string[] = [];
  for (const message of request.messages ?? []) {
    const content = message.content;
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (part.text) parts.push(part.text);
    for (const call of message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  }
  if (request.tools?.length) parts.push(JSON.stringify(request.tools));
  return parts.join('\n');
}

/** The estimate from characters (code points, so that non-Latin scripts are not undercounted). */
export function estimatePrompt(text: string, messages = 0): PromptMeasure {
  const chars = [...text].length;
  const overhead = messages * TEMPLATE_TOKENS_PER_MESSAGE;
  return {
    tokens: Math.ceil(chars / UPPER_CHARS_PER_TOKEN) + overhead,
    lower: Math.floor(chars / LOWER_CHARS_PER_TOKEN),
    by: 'estimate',
  };
}

export function estimateChatPrompt(request: Pick<ChatRequest, 'messages' | 'tools'>): PromptMeasure {
  return estimatePrompt(promptText(request), request.messages?.length ?? 0);
}

/** A count from the server's tokenizer: exact, so the lower bound is the count less a small template margin. */
export function tokenizerMeasure(count: number): PromptMeasure {
  return { tokens: count, lower: Math.floor(count * 0.95), by: 'tokenizer' };
}

/** The count a `/tokenize` answer carries: vLLM/SGLang `{count}`, llama.cpp `{tokens: [...]}`. */
export function countFromTokenizeAnswer(answer: unknown): number | null {
  const body = answer as { count?: unknown; tokens?: unknown };
  if (typeof body?.count === 'number') return body.count;
  if (Array.isArray(body?.tokens)) return body.tokens.length;
  return null;
}
