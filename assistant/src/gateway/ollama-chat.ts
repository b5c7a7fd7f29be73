// A chat completion served by Ollama's native /api/chat (the derived model keeps its window, keep_alive keeps the
// model and its prompt cache loaded), answered to the caller in the OpenAI format it asked in.
import { cutMessage, wasCut } from './call';
import { GatewayError } from './errors';
import { sendError } from './forward';
import { fromOllamaChat, ollamaChunksToOpenAi, readNdjson, toOllamaChat } from './ollama/translate';
import type { OllamaChatChunk, OllamaChatResponse } from './ollama/translate';
import type { ChatRequest } from './openai-types';
import type { RouteInput } from './routes';
import { errorMessageOf, usageOf, type ReportedUsage } from './usage';

export async function relayOllamaChat(input: RouteInput, request: ChatRequest, derivedModel: string): Promise<void> {
  const { call, res } = input;
  const provider = call.provider!;
  let response = await postChat(input, request, derivedModel);
  if (response.status === 404) {
    // The derived model is gone (deleted, or Ollama reinstalled): created again, once.
    await response.body?.cancel();
    provider.forgetServed(call.model);
    response = await postChat(input, request, (await provider.serve(call.model)).id);
  }
  if (!response.ok) {
    const message = errorMessageOf(await response.text());
    // Sent with truncate: false, a prompt over the window is Ollama's 400 instead of a silent cut.
    if (response.status === 400 && /exceeds the context length/i.test(message)) {
      const error = new GatewayError(
        'context_length_exceeded',
        `Ollama refused the prompt for ${call.model}: ${message} (its window is ${call.windowTokens} tokens; ` +
          'raise ASSISTANT_OLLAMA_MAX_CONTEXT if the host has the memory, or shorten the prompt)',
        'messages',
      );
      await call.end('refused', error.status, undefined, error.message);
      return sendError(res, error);
    }
    const error = new GatewayError('ollama_model', `Ollama answered ${response.status}: ${message}`);
    await call.end('failed', response.status, undefined, error.message);
    return sendErrorWithStatus(input, response.status, error);
  }
  if (request.stream) return streamAnswer(input, response, request);
  const answer = fromOllamaChat((await response.json()) as OllamaChatResponse, call.model);
  const usage = usageOf(answer);
  if (usage && wasCut(call.measured, usage)) {
    const error = new GatewayError('prompt_cut', cutMessage(call, usage));
    await call.end('cut', error.status, usage, error.message);
    return sendError(res, error);
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(answer));
  void call.end('ok', 200, usage ?? undefined);
}

async function postChat(input: RouteInput, request: ChatRequest, derivedModel: string): Promise<Response> {
  const provider = input.call.provider!;
  const body = toOllamaChat(request, derivedModel, input.settings.ollamaKeepAlive);
  try {
    return await fetch(`${provider.root}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...provider.authHeaders() },
      body: JSON.stringify(body),
      signal: input.signal,
    });
  } catch (error) {
    if (input.signal.aborted) throw error;
    throw new GatewayError('upstream_unreachable', `Ollama at ${provider.root} did not answer; is it running?`);
  }
}

async function streamAnswer(input: RouteInput, response: Response, request: ChatRequest): Promise<void> {
  const { call, res } = input;
  const callerWantsUsage = request.stream_options?.include_usage === true;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let usage: ReportedUsage | null = null;
  const chunks = readNdjson(response.body!) as AsyncIterable<OllamaChatChunk>;
  for await (const chunk of ollamaChunksToOpenAi(chunks, call.model, true)) {
    const found = usageOf(chunk);
    if (found) usage = found;
    if (found && chunk.choices.length === 0 && !callerWantsUsage) continue;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.write('data: [DONE]\n\n');
  res.end();
  if (usage && wasCut(call.measured, usage)) return call.end('cut', 200, usage, cutMessage(call, usage));
  return call.end('ok', 200, usage ?? undefined);
}

function sendErrorWithStatus(input: RouteInput, status: number, error: GatewayError): void {
  input.res.writeHead(status, { 'content-type': 'application/json' });
  input.res.end(JSON.stringify(error.toJSON()));
}
