// "No cut prompt, ever": a prompt that cannot fit the model's window, with room for its answer, is refused before it
// is sent, with a message that says what to change.
import type { ModelCall } from './call';
import { GatewayError } from './errors';
import type { PromptMeasure } from './measure';
import type { ModelWindow } from './windows';

export interface FitCheck {
  measured: PromptMeasure;
  window: ModelWindow | null;
  /** Tokens kept for the answer: the request's max_tokens, else the gateway's setting. */
  outputTokens: number;
  ollama: boolean;
  /** The Ollama window cap (ASSISTANT_OLLAMA_MAX_CONTEXT), for the advice. */
  ollamaMaxContext: number;
}

/** Records the measure on the call; throws context_length_exceeded when the prompt cannot fit. */
export function assertFits(call: ModelCall, check: FitCheck): void {
  call.measured = check.measured;
  call.windowTokens = check.window?.tokens ?? null;
  if (!check.window) return;
  const needed = check.measured.tokens + check.outputTokens;
  if (needed <= check.window.tokens) return;
  const measure = check.measured.by === 'tokenizer' ? "by the server's tokenizer" : 'estimated';
  throw new GatewayError(
    'context_length_exceeded',
    `the prompt for ${call.model} is ${check.measured.tokens} tokens (${measure}) and ${check.outputTokens} are kept ` +
      `for the answer, but the model's window is ${check.window.tokens} tokens (${windowSource(check)}); it was not ` +
      `sent. ${advice(check)}`,
    'messages',
  );
}

function windowSource(check: FitCheck): string {
  if (check.ollama) return "the gateway's Ollama window";
  return { live: 'as the server reports it', override: 'ASSISTANT_MODEL_WINDOWS', table: "the gateway's table" }[
    check.window!.source
  ];
}

function advice(check: FitCheck): string {
  if (check.ollama)
    return (
      `Raise ASSISTANT_OLLAMA_MAX_CONTEXT (now ${check.ollamaMaxContext}) and ASSISTANT_PROMPT_BUDGET_TOKENS if the ` +
      'host has the memory and the model was trained for it, use a model with a larger window, or shorten the prompt.'
    );
  if (check.window!.source === 'live')
    return 'Start the model server with a larger window (vLLM --max-model-len, llama.cpp -c), or use a larger model.';
  return 'Use a model with a larger window, or set ASSISTANT_MODEL_WINDOWS=<model>=<tokens> if its window is larger.';
}
