// The fake Ollama's stand-ins for a model's chat template and tokenizer, and Ollama's rule for fitting a chat into
// the context window (num_ctx). Pure functions, exported so that tests can compute what the fake will report.
//
// Real behaviour copied (ollama/ollama at fb30760, Aug 2026):
// - server/prompt.go `chatPrompt` (and server/routes.go `truncateNativeChatMessages`): when the rendered prompt has
//   more tokens than num_ctx, whole messages are dropped from the FRONT until it fits; system messages among the
//   dropped ones are kept (rendered first), the latest message is always kept. The tools are rendered every time.
// - llm/llama_server.go `completionPromptForRequest` + `contextShiftPromptLimit` (earlier: runner/ollamarunner
//   `NewSequence`): if the kept messages alone are still too long, the token list is cut in the middle: the first
//   num_keep tokens (default 4, api/types.go DefaultOptions) stay, then only the tail, to a total of
//   num_ctx - max((num_ctx - num_keep) / 2, 1) tokens. Silently: the answer is a normal 200.
// - The tokenizer is a stand-in: one token per 4 characters (ceil) of the rendered prompt; the rendered prompt
//   contains the tool schemas as JSON, as a chat template (e.g. Qwen's) puts them into the system turn.

export interface FakeToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
}

/** A chat message as Ollama's /api/chat takes it (api/types.go `Message`). */
export interface FakeMessage {
  role: string;
  content?: string;
  tool_calls?: FakeToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

export const CHARS_PER_TOKEN = 4;
/** api/types.go DefaultOptions: NumKeep 4. */
export const DEFAULT_NUM_KEEP = 4;

export function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A ChatML-like template: tools first (in a system turn), then each message, then the open assistant turn. */
export function renderPrompt(messages: FakeMessage[], tools: unknown[] = []): string {
  let prompt = '';
  if (tools.length > 0) {
    prompt += `<|im_start|>system\n# Tools\n<tools>\n${tools.map((tool) => JSON.stringify(tool)).join('\n')}\n</tools><|im_end|>\n`;
  }
  for (const message of messages) prompt += renderMessage(message);
  return `${prompt}<|im_start|>assistant\n`;
}

export function renderMessage(message: FakeMessage): string {
  const calls = (message.tool_calls ?? [])
    .map(
      (call) =>
        `\n<tool_call>${JSON.stringify({ name: call.function.name, arguments: call.function.arguments })}</tool_call>`,
    )
    .join('');
  return `<|im_start|>${message.role}\n${message.content ?? ''}${calls}<|im_end|>\n`;
}

/** Tokens of the rendered prompt, as the fake reports them in prompt_eval_count when nothing is cut. */
export function promptTokens(messages: FakeMessage[], tools: unknown[] = []): number {
  return countTokens(renderPrompt(messages, tools));
}

export interface FittedPrompt {
  /** The messages the model sees (system messages of the dropped part first). */
  messages: FakeMessage[];
  /** The rendered prompt the model sees (after a middle cut too). */
  prompt: string;
  tokens: number;
  droppedMessages: number;
  /** Tokens of the full rendered prompt minus the tokens seen. */
  droppedTokens: number;
  /** Whether even the kept messages were too long and the token list was cut in the middle. */
  midPromptCut: boolean;
}

/** Ollama's silent truncation (see the header): drop whole messages from the front, then cut tokens if needed. */
export function fitToWindow(messages: FakeMessage[], tools: unknown[], numCtx: number): FittedPrompt {
  const fullTokens = promptTokens(messages, tools);
  let kept = messages;
  let dropped = 0;
  for (let start = 0; start < messages.length; start++) {
    const systems = messages.slice(0, start).filter((message) => message.role === 'system');
    const candidate = [...systems, ...messages.slice(start)];
    if (promptTokens(candidate, tools) <= numCtx || start === messages.length - 1) {
      kept = candidate;
      dropped = start - systems.length;
      break;
    }
  }
  let prompt = renderPrompt(kept, tools);
  let midPromptCut = false;
  if (countTokens(prompt) > numCtx) {
    prompt = cutTokensInTheMiddle(prompt, numCtx);
    midPromptCut = true;
  }
  const tokens = countTokens(prompt);
  return { messages: kept, prompt, tokens, droppedMessages: dropped, droppedTokens: fullTokens - tokens, midPromptCut };
}

/** llm/llama_server.go: keep num_keep tokens, then the tail, to num_ctx - max((num_ctx - num_keep) / 2, 1). */
export function cutTokensInTheMiddle(prompt: string, numCtx: number, numKeep = DEFAULT_NUM_KEEP): string {
  const keep = Math.max(0, Math.min(numKeep, numCtx - 1));
  const limit = numCtx - Math.max(Math.floor((numCtx - keep) / 2), 1);
  const tokens: string[] = [];
  for (let at = 0; at < prompt.length; at += CHARS_PER_TOKEN) tokens.push(prompt.slice(at, at + CHARS_PER_TOKEN));
  return [...tokens.slice(0, keep), ...tokens.slice(tokens.length - (limit - keep))].join('');
}

/** How many whole tokens two rendered prompts share from their start (the slot's reusable KV cache). */
export function sharedPrefixTokens(cached: string, prompt: string): number {
  const length = Math.min(cached.length, prompt.length);
  let same = 0;
  while (same < length && cached.charCodeAt(same) === prompt.charCodeAt(same)) same++;
  return Math.floor(same / CHARS_PER_TOKEN);
}
