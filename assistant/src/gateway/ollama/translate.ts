// OpenAI chat completions ⇄ Ollama's native /api/chat, both ways, pure (no I/O but reading a given stream).
// Learnt from ollama/ollama (fb30760, Aug 2026), no code copied; the real behaviour each part follows:
// - The native format: api/types.go (`ChatRequest`, `Message` with tool_name/tool_call_id, `ToolCall` whose
//   `function.arguments` is an object, `ChatResponse` + `Metrics`) and docs/api.md "Generate a chat completion".
//   /api/chat streams by default, so `stream: false` is always sent explicitly.
// - OpenAI → Ollama as Ollama's own /v1 does it (openai/openai.go `FromChatRequest`): text parts become the content,
//   base64 data-URL images become `images`, tool-call arguments are parsed from their JSON string, a tool message
//   gets `tool_name` from the assistant call it answers (`nameFromToolCallID`), max_tokens → options.num_predict,
//   stop → options.stop (a list), temperature/top_p/seed → options, response_format json_schema → `format` = the
//   schema, json_object → "json". Unlike /v1, nothing is defaulted (/v1 forces temperature 1 and top_p 1), so the
//   model's own Modelfile defaults stay.
// - Ollama → OpenAI as openai/openai.go `ToChatCompletion`, `ToToolCalls`, `ToUsage`, `FinishChunk` do it:
//   arguments become a JSON string, a "stop" with tool calls is finish_reason "tool_calls", usage is
//   prompt_eval_count / eval_count (prompt_eval_count counts the cached prefix too: llm/llama_server.go
//   `promptEvalCount`). Tool calls without an id get one (`call_…`, as server/routes.go `toolCallId`).
// - A stream line {"error": "…"} (server/routes.go `streamResponse`) ends the stream with an OllamaStreamError.
// - logprobs / top_logprobs (the judge scores with them) are /api/chat's own fields (api/types.go `ChatRequest`,
//   Ollama ≥ 0.12.11, as `FromChatRequest` passes them); the answer's `logprobs` (api/types.go `Logprob`, one per
//   token) become choices[].logprobs.content, per chunk when streamed (`ToChatCompletion`, `toChunk`).
import { randomBytes } from 'node:crypto';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatLogprobs,
  ChatMessage,
  ChatRequest,
  ChatToolCall,
} from '../openai-types';

export interface OllamaToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

export interface OllamaTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface OllamaChatRequest {
  model: string;
  messages: OllamaMessage[];
  tools?: OllamaTool[];
  format?: 'json' | Record<string, unknown>;
  options?: Record<string, unknown>;
  stream: boolean;
  keep_alive?: string | number;
  think?: boolean | string;
  truncate?: boolean;
  logprobs?: boolean;
  top_logprobs?: number;
}

export interface OllamaMetrics {
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
}

export interface OllamaChatResponse extends OllamaMetrics {
  model: string;
  created_at: string;
  message: OllamaMessage;
  done: boolean;
  done_reason?: string;
  logprobs?: ChatLogprobs['content'];
}

/** One line of a streamed /api/chat answer: the same shape, `done` only on the last. */
export type OllamaChatChunk = OllamaChatResponse;

/** A stream (or answer) that Ollama ended with {"error": …}. */
export class OllamaStreamError extends Error {
  constructor(message: string) {
    super(`Ollama: ${message}`);
    this.name = 'OllamaStreamError';
  }
}

export function toOllamaChat(request: ChatRequest, model: string, keepAlive: string): OllamaChatRequest {
  const body: OllamaChatRequest = {
    model,
    messages: request.messages.map((message) => toOllamaMessage(message, request.messages)),
    stream: request.stream === true,
    keep_alive: keepAlive,
    // Ollama cuts an over-long prompt silently unless told not to; then it answers 400 instead (api/types.go).
    truncate: false,
  };
  if (request.tools?.length && request.tool_choice !== 'none') body.tools = request.tools;
  const options = toOllamaOptions(request);
  if (Object.keys(options).length > 0) body.options = options;
  const format = toOllamaFormat(request.response_format);
  if (format !== undefined) body.format = format;
  if (request.logprobs === true) body.logprobs = true;
  if (typeof request.top_logprobs === 'number') body.top_logprobs = request.top_logprobs;
  return body;
}

function toOllamaOptions(request: ChatRequest): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') options.num_predict = maxTokens;
  if (typeof request.temperature === 'number') options.temperature = request.temperature;
  if (typeof request.top_p === 'number') options.top_p = request.top_p;
  if (typeof request.seed === 'number') options.seed = request.seed;
  if (typeof request.stop === 'string') options.stop = [request.stop];
  else if (Array.isArray(request.stop)) options.stop = request.stop;
  return options;
}

function toOllamaFormat(format: ChatRequest['response_format']): OllamaChatRequest['format'] {
  if (format?.type === 'json_object') return 'json';
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
  return schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : undefined;
}

function toOllamaMessage(message: ChatMessage, all: ChatMessage[]): OllamaMessage {
  const role = message.role === 'developer' ? 'system' : message.role;
  const out: OllamaMessage = { role, content: textOf(message.content) };
  const images = imagesOf(message.content);
  if (images.length > 0) out.images = images;
  if (message.tool_calls?.length) {
    out.tool_calls = message.tool_calls.map((call, index) => ({
      id: call.id,
      function: { index, name: call.function.name, arguments: parseArguments(call) },
    }));
  }
  if (message.role === 'tool') {
    const name = message.name ?? toolNameOf(message.tool_call_id, all);
    if (name) out.tool_name = name;
    if (message.tool_call_id) out.tool_call_id = message.tool_call_id;
  }
  return out;
}

function textOf(content: ChatMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

/** Base64 data-URL images (Ollama takes the bare base64); Ollama does not fetch http(s) image URLs. */
function imagesOf(content: ChatMessage['content']): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .map((part) => part.image_url?.url ?? '')
    .map((url) => /^data:[^,]*;base64,(.*)$/s.exec(url)?.[1])
    .filter((data): data is string => data !== undefined);
}

function parseArguments(call: ChatToolCall): Record<string, unknown> {
  const text = call.function.arguments.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`tool call ${call.id} (${call.function.name}): its arguments are not JSON: ${text.slice(0, 200)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`tool call ${call.id} (${call.function.name}): its arguments are not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** The latest assistant call with this id names the tool (openai/openai.go `nameFromToolCallID`). */
function toolNameOf(toolCallId: string | undefined, all: ChatMessage[]): string | undefined {
  if (!toolCallId) return undefined;
  for (let index = all.length - 1; index >= 0; index--) {
    const call = all[index].tool_calls?.find((candidate) => candidate.id === toolCallId);
    if (call) return call.function.name;
  }
  return undefined;
}

function generatedId(prefix: string): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

function createdOf(createdAt: string | undefined): number {
  const ms = createdAt ? Date.parse(createdAt) : NaN;
  return Math.floor((Number.isNaN(ms) ? Date.now() : ms) / 1000);
}

function toOpenAiToolCalls(calls: OllamaToolCall[] | undefined): ChatToolCall[] {
  return (calls ?? []).map((call) => ({
    id: call.id || generatedId('call_'),
    type: 'function',
    function: { name: call.function.name, arguments: JSON.stringify(call.function.arguments ?? {}) },
  }));
}

function finishReasonOf(doneReason: string | undefined, sawToolCalls: boolean): 'stop' | 'length' | 'tool_calls' {
  if (doneReason === 'length') return 'length';
  return sawToolCalls ? 'tool_calls' : 'stop';
}

function usageOf(metrics: OllamaMetrics) {
  const prompt = metrics.prompt_eval_count ?? 0;
  const output = metrics.eval_count ?? 0;
  return { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output };
}

function logprobsOf(response: OllamaChatResponse): ChatLogprobs | null {
  return response.logprobs?.length ? { content: response.logprobs } : null;
}

/**
 * What Ollama's own OpenAI-compatible layer puts in every reply (ollama/openai/openai.go): clients such as the judge
 * read it to learn that the upstream runs one request at a time, and the translation keeps it.
 */
export const OLLAMA_FINGERPRINT = 'fp_ollama';

export function fromOllamaChat(response: OllamaChatResponse, model: string): ChatCompletion {
  const error = (response as { error?: unknown }).error;
  if (typeof error === 'string') throw new OllamaStreamError(error);
  const toolCalls = toOpenAiToolCalls(response.message?.tool_calls);
  const content = response.message?.content ?? '';
  return {
    id: generatedId('chatcmpl-'),
    object: 'chat.completion',
    created: createdOf(response.created_at),
    model,
    system_fingerprint: OLLAMA_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content === '' && toolCalls.length > 0 ? null : content,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(response.done_reason, toolCalls.length > 0),
        logprobs: logprobsOf(response),
      },
    ],
    usage: usageOf(response),
  };
}

/**
 * Ollama's NDJSON chunks as OpenAI chunks: a role delta first, then content and tool-call deltas (each tool call
 * whole, with its index), a finish chunk, and with `includeUsage` a last chunk with no choices and the usage.
 */
export async function* ollamaChunksToOpenAi(
  chunks: AsyncIterable<OllamaChatChunk>,
  model: string,
  includeUsage: boolean,
): AsyncIterable<ChatCompletionChunk> {
  const id = generatedId('chatcmpl-');
  let created = Math.floor(Date.now() / 1000);
  const chunk = (
    delta: ChatCompletionChunk['choices'][0]['delta'],
    finish: ChatCompletionChunk['choices'][0]['finish_reason'],
    logprobs: ChatLogprobs | null = null,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: OLLAMA_FINGERPRINT,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs }],
  });
  let started = false;
  let toolCallCount = 0;
  for await (const line of chunks) {
    const error = (line as { error?: unknown }).error;
    if (typeof error === 'string') throw new OllamaStreamError(error);
    if (!started) {
      created = createdOf(line.created_at);
      started = true;
      yield chunk({ role: 'assistant', content: '' }, null);
    }
    const content = line.message?.content ?? '';
    if (content !== '') yield chunk({ content }, null, logprobsOf(line));
    const calls = toOpenAiToolCalls(line.message?.tool_calls);
    if (calls.length > 0) {
      yield chunk({ tool_calls: calls.map((call) => ({ ...call, index: toolCallCount++ })) }, null);
    }
    if (line.done) {
      yield chunk({}, finishReasonOf(line.done_reason, toolCallCount > 0));
      if (includeUsage) yield { ...chunk({}, null), choices: [], usage: usageOf(line) };
      return;
    }
  }
  throw new OllamaStreamError('the stream ended before its last (done) line');
}

/** The JSON values of an NDJSON body, one per non-empty line; a line may arrive split over several chunks. */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncIterable<unknown> {
  const decoder = new TextDecoder();
  let pending = '';
  const reader = body.getReader();
  let finished = false;
  try {
    while (!finished) {
      const { done, value } = await reader.read();
      finished = done;
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = done ? '' : lines.pop()!;
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as unknown;
    }
  } finally {
    // A reader that stops early frees the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
