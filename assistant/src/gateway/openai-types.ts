// The OpenAI-compatible chat completions wire format, as far as the model gateway reads or writes it
// (https://platform.openai.com/docs/api-reference/chat). Fields the gateway does not read pass through untouched.

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | Array<{ type: string; text?: string; image_url?: { url: string } }> | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  response_format?: { type: string; json_schema?: { schema?: unknown } };
  logprobs?: boolean;
  top_logprobs?: number;
  [other: string]: unknown;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
}

/** The answer's tokens with their log probabilities (logprobs: true) and top_logprobs alternatives when asked. */
export interface ChatLogprobs {
  content: Array<TokenLogprob & { top_logprobs?: TokenLogprob[] }>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  system_fingerprint?: string;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
    finish_reason: 'stop' | 'length' | 'tool_calls' | null;
    logprobs: ChatLogprobs | null;
  }>;
  usage: Usage;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  system_fingerprint?: string;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: Array<ChatToolCall & { index: number }>;
    };
    finish_reason: 'stop' | 'length' | 'tool_calls' | null;
    logprobs: ChatLogprobs | null;
  }>;
  usage?: Usage | null;
}
