// What the gateway does per OpenAI-compatible route: chat completions (to Ollama's native /api/chat when the
// provider is Ollama), completions, embeddings, audio transcriptions, and any other path passed through unchanged.
import type { ServerResponse } from 'node:http';
import { isInteractive, splitCaller } from './caller';
import type { GatewayBudget } from './budget';
import type { ModelCall } from './call';
import type { GatewaySettings } from './config';
import { GatewayError } from './errors';
import { assertFits } from './fit';
import { relayError, relayEventStream, relayJson, sendUpstream } from './forward';
import { estimatePrompt } from './measure';
import { relayOllamaChat } from './ollama-chat';
import type { ChatRequest } from './openai-types';

export interface RouteInput {
  call: ModelCall;
  budget: GatewayBudget;
  settings: GatewaySettings;
  /** The path after /<upstream>/, e.g. "v1/chat/completions" or "tokenize", with its query. */
  path: string;
  method: string;
  body: Buffer;
  contentType: string;
  res: ServerResponse;
  signal: AbortSignal;
}

export type RouteName = 'chat' | 'completions' | 'embeddings' | 'transcriptions' | 'other';

export function routeOf(method: string, path: string): RouteName {
  const bare = path.split('?')[0];
  if (method !== 'POST') return 'other';
  if (bare === 'v1/chat/completions') return 'chat';
  if (bare === 'v1/completions') return 'completions';
  if (bare === 'v1/embeddings') return 'embeddings';
  if (bare === 'v1/audio/transcriptions') return 'transcriptions';
  return 'other';
}

export async function handleRoute(route: RouteName, input: RouteInput): Promise<void> {
  if (route === 'transcriptions') return transcription(input);
  const json = route === 'other' && !input.contentType.includes('json') ? undefined : parseJson(input);
  if (json && typeof json.model === 'string') {
    const { model, caller } = splitCaller(json.model);
    input.call.model = model;
    input.call.caller = caller;
  } else if (route !== 'other') {
    throw new GatewayError('invalid_request', 'the request needs a "model" (the model id)', 'model');
  }
  if (route === 'chat') return chat(input, json as ChatRequest);
  if (route === 'completions') return completion(input, json!);
  return passThrough(input, json);
}

function parseJson(input: RouteInput): Record<string, unknown> {
  try {
    const value = JSON.parse(input.body.toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // named below
  }
  throw new GatewayError('invalid_request', 'the body must be a JSON object', 'body');
}

/** Where the path goes at the provider: v1/… under its base URL, anything else under its root. */
function upstreamUrl(input: RouteInput): string {
  const provider = input.call.provider!;
  return input.path.startsWith('v1/') ? `${provider.baseUrl}/${input.path.slice(3)}` : `${provider.root}/${input.path}`;
}

function outputTokens(request: Record<string, unknown>, settings: GatewaySettings): number {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  return typeof asked === 'number' && asked > 0 ? asked : settings.maxOutputTokens;
}

async function chat(input: RouteInput, request: ChatRequest): Promise<void> {
  if (!Array.isArray(request.messages) || request.messages.length === 0)
    throw new GatewayError('invalid_request', 'the request needs "messages" (a non-empty list)', 'messages');
  const { call, settings } = input;
  const provider = call.provider!;
  const ollama = await provider.isOllama();
  const served = await provider.serve(call.model);
  const output = outputTokens(request, settings);
  assertFits(call, {
    measured: await provider.measureChat(request, call.model),
    window: served.window,
    outputTokens: output,
    ollama,
    ollamaMaxContext: settings.ollamaMaxContext,
  });
  await input.budget.reserve(call, call.measured!.tokens, output);
  const release = await (await provider.slots()).acquire(isInteractiveCall(call), input.signal);
  try {
    if (ollama) return await relayOllamaChat(input, request, served.id);
    const callerWantsUsage = request.stream_options?.include_usage === true;
    const body: Record<string, unknown> = { ...request, model: served.id };
    if (request.stream) body.stream_options = { ...request.stream_options, include_usage: true };
    await relay(input, JSON.stringify(body), callerWantsUsage, request.stream === true);
  } finally {
    release();
  }
}

async function completion(input: RouteInput, request: Record<string, unknown>): Promise<void> {
  const { call, settings } = input;
  const provider = call.provider!;
  const served = await provider.serve(call.model);
  const prompt = Array.isArray(request.prompt) ? request.prompt.join('\n') : String(request.prompt ?? '');
  const output = outputTokens(request, settings);
  assertFits(call, {
    measured: estimatePrompt(prompt, 1),
    window: served.window,
    outputTokens: output,
    ollama: await provider.isOllama(),
    ollamaMaxContext: settings.ollamaMaxContext,
  });
  await input.budget.reserve(call, call.measured!.tokens, output);
  const release = await (await provider.slots()).acquire(isInteractiveCall(call), input.signal);
  try {
    const body: Record<string, unknown> = { ...request, model: served.id };
    const stream = request.stream === true;
    const callerWantsUsage =
      (request.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    if (stream) body.stream_options = { include_usage: true };
    await relay(input, JSON.stringify(body), callerWantsUsage, stream);
  } finally {
    release();
  }
}

/** Embeddings and any other route: the model id without the suffix, nothing else changed. */
async function passThrough(input: RouteInput, json: Record<string, unknown> | undefined): Promise<void> {
  const body = json ? JSON.stringify({ ...json, model: input.call.model }) : input.body;
  // Embeddings cost their input; other paths (a tokenizer, a model list) are not model calls.
  if (input.call.route === 'embeddings') {
    const text = Array.isArray(json?.input) ? json.input.join('\n') : String(json?.input ?? '');
    await input.budget.reserve(input.call, estimatePrompt(text).tokens, 0);
  }
  const release = await (await input.call.provider!.slots()).acquire(isInteractiveCall(input.call), input.signal);
  try {
    await relay(input, input.method === 'GET' || input.method === 'HEAD' ? undefined : body, false, false);
  } finally {
    release();
  }
}

/** A multipart upload: its "model" field read and rewritten, the rest sent as it came. */
async function transcription(input: RouteInput): Promise<void> {
  let form: FormData;
  try {
    form = await new Request('http://gateway/', {
      method: 'POST',
      headers: { 'content-type': input.contentType },
      body: input.body,
    }).formData();
  } catch {
    throw new GatewayError('invalid_request', 'the body must be multipart/form-data with "file" and "model"', 'body');
  }
  const model = form.get('model');
  if (typeof model !== 'string') throw new GatewayError('invalid_request', 'the form needs a "model" field', 'model');
  const split = splitCaller(model);
  input.call.model = split.model;
  input.call.caller = split.caller;
  form.set('model', split.model);
  // Billed by the audio's length, which the gateway does not measure: a nominal reservation, refused once a cap is spent.
  await input.budget.reserveNominal(input.call);
  const release = await (await input.call.provider!.slots()).acquire(true, input.signal);
  try {
    const response = await sendUpstream(
      input.call,
      { url: upstreamUrl(input), method: 'POST', body: form },
      input.signal,
    );
    if (!response.ok) return await relayError(input.call, response, input.res);
    await relayJson(input.call, response, input.res);
  } finally {
    release();
  }
}

async function relay(
  input: RouteInput,
  body: RequestInit['body'] | undefined,
  callerWantsUsage: boolean,
  stream: boolean,
): Promise<void> {
  const forwarded = {
    url: upstreamUrl(input),
    method: input.method,
    body,
    contentType: input.contentType || undefined,
  };
  const response = await sendUpstream(input.call, forwarded, input.signal);
  if (!response.ok) return relayError(input.call, response, input.res);
  if (stream || response.headers.get('content-type')?.includes('text/event-stream'))
    return relayEventStream(input.call, response, input.res, callerWantsUsage);
  return relayJson(input.call, response, input.res);
}

const isInteractiveCall = (call: ModelCall): boolean => isInteractive(call.caller);
