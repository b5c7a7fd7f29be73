// The chat model capture asks, through the model gateway: the Assistant Chat Model credential the agent's Chat Model
// node uses (n8n's openAiApi: `url`, the gateway's /llm/v1, and `apiKey`, the gateway's key; the key stays in n8n's
// credential store). One POST /chat/completions with a time limit and the execution's cancel signal; a non-2xx
// answer is a ChatModelError carrying the status and the message of OpenAI's error envelope.
import type { IExecuteFunctions } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';

export const CHAT_MODEL_CREDENTIAL = 'openAiApi';

export interface ChatModelEndpoint {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:5681/llm/v1. */
  baseUrl: string;
  apiKey: string;
}

/** A model call that got no usable answer: `status` 0 when there was no HTTP answer (unreachable, timed out, stopped). */
export class ChatModelError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'ChatModelError';
  }
}

/** The node's Assistant Chat Model credential as an endpoint; errors name the credential's field. */
export async function chatModelEndpoint(context: IExecuteFunctions, itemIndex: number): Promise<ChatModelEndpoint> {
  if (!context.getNode().credentials?.[CHAT_MODEL_CREDENTIAL])
    throw new AssistantInputError('credentials', 'capture needs the Assistant Chat Model credential (OpenAI type)');
  const credential = await context.getCredentials<{ url?: string; apiKey?: string }>(CHAT_MODEL_CREDENTIAL, itemIndex);
  const baseUrl = String(credential.url || 'https://api.openai.com/v1').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s]+$/.test(baseUrl))
    throw new AssistantInputError('url', 'the Assistant Chat Model credential needs an http(s) base URL');
  return { baseUrl, apiKey: String(credential.apiKey ?? '') };
}

/** POSTs a chat completion and returns the parsed answer; throws ChatModelError for anything but a 2xx JSON body. */
export async function postChatCompletion(
  endpoint: ChatModelEndpoint,
  body: object,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(`${endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw new ChatModelError(0, 'the run was stopped during the model call');
    if (timeout.aborted) throw new ChatModelError(0, `the model gave no answer within ${options.timeoutMs / 1000} s`);
    throw new ChatModelError(0, `the model gateway is unreachable: ${(error as Error).message}`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const envelope = (parsed as { error?: { message?: unknown; code?: unknown } } | undefined)?.error;
    const message = typeof envelope?.message === 'string' ? envelope.message : text.slice(0, 300);
    const code = typeof envelope?.code === 'string' ? envelope.code : null;
    throw new ChatModelError(response.status, `the model call failed (${response.status}): ${message}`, code);
  }
  if (parsed === undefined) throw new ChatModelError(response.status, 'the model answered with something not JSON');
  return parsed;
}
