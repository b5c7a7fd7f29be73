// A loopback OpenAI-compatible server that plays scripted conversations.
//
// Protocol served (as the OpenAI API does): POST /v1/chat/completions (JSON or `stream: true` SSE, tool calls),
// GET /v1/models, POST /v1/embeddings, POST /v1/audio/transcriptions (multipart; OGG/Opus, like a voice note, a
// RIFF/WAVE file, or WebM, what a browser's MediaRecorder records: formats OpenAI's endpoint lists; the text is what a
// test registered for that audio, by its SHA-256: the fake cannot hear). Errors use OpenAI's `{error: {message, type, code}}` envelope.
// `usage.prompt_tokens` counts the messages and the tool schemas (characters / 4), as providers bill tools; with
// `contextWindow` it is capped there, the silent cut of llama.cpp's server and Ollama's /v1 route. A model id with a
// "#" (the gateway's caller suffix, which must never reach a provider) is OpenAI's 404 model_not_found.
//
// Scripts are programmed over HTTP, because the e2e harness starts this fake in vitest's main process while the
// tests run in workers:
//   POST   /__scripts   {match, steps}  → {id}     a conversation whose latest user message contains `match`
//   DELETE /__scripts                              forget every script
//   GET    /__requests?match=…                     recorded chat requests (latest user message contains `match`)
//   DELETE /__requests
//   POST   /__transcripts {sha256, text}            what the transcription endpoint answers for that audio
// Which step answers a request is derived from the request itself — the number of assistant tool-call rounds
// after the latest user message — so concurrent conversations never disturb each other and an agent's retries
// see the same step again. A request no script matches gets an echo of the user's message (a context block the
// assistant puts in front of the user's words, "[Context from the assistant…]…[End of context]", is left out).
//
// Steps: {content} a final answer; {tool_calls: [{name, arguments}]} calls tools the request offers;
// {fail: {status, message}} an API error; {hang: true} never answers (for timeouts). Any step may add `delay_ms`.
// In content and string arguments, {{last_tool_result}} becomes the latest tool message's content.
// {obey: true} plays a gullible model: it follows an instruction found in the latest tool message, "CALL <tool>
// <JSON arguments>" (as an injected page would give it), calling that tool if the request offers it; without one
// it answers `otherwise` (default: the tool message).
//
// Memory capture (assistant/src/memory/capture.ts): a request whose `tool_choice` names `record_extraction` is
// answered by a deterministic extractor instead of a script or the echo (extraction.ts: capitalised names, "X is my
// Y", "X replaces Z as my Y"; `[bad-extraction]` and `[bad-extraction-once]` answer an invalid extraction), with that
// one tool call, as a model forced to call a function does (OpenAI's `tool_choice: {type: "function", function:
// {name}}`). The conversation is the first user message; a later user message (the validation error) is the retry.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { isOggOpus } from './speech';
import { EXTRACTION_TOOL, fakeExtractionArguments } from './extraction';
import { listenOnLoopback, readBody, sendJson, withoutContextBlock } from './http-util';

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type ScriptStep = { delay_ms?: number } & (
  | { content: string }
  | { tool_calls: ScriptedToolCall[] }
  | { fail: { status: number; message?: string } }
  | { hang: true }
  | { obey: true; otherwise?: string }
);

export interface Script {
  id: string;
  match: string;
  steps: ScriptStep[];
}

export interface RecordedChatRequest {
  at: string;
  scriptId: string | null;
  step: number;
  authorization: string | undefined;
  body: ChatRequestBody;
}

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

interface ChatRequestBody {
  model?: string;
  messages?: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tool_choice?: string | { type?: string; function?: { name?: string } };
}

/** The function a request forces the model to call (`tool_choice: {type: "function", function: {name}}`). */
const forcedTool = (body: ChatRequestBody): string | undefined =>
  typeof body.tool_choice === 'object' ? body.tool_choice?.function?.name : undefined;

export interface OpenAiChatFakeOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get OpenAI's 401. */
  apiKey?: string;
  models?: string[];
  /**
   * The API's path as a provider serves it (e.g. `/v1beta/openai` for Gemini, `/api/v1` for OpenRouter); `/v1` by
   * default, which may also be left out.
   */
  pathPrefix?: string;
  /**
   * A server whose context window is smaller than the prompt it gets, as llama.cpp's server and Ollama's /v1 route
   * run: the prompt is cut silently (answered 200) and `usage.prompt_tokens` reports only what was kept.
   */
  contextWindow?: number;
}

export interface OpenAiChatFake {
  url: string;
  close(): Promise<void>;
}

const MAX_RECORDED = 400;

export function messageText(message: ChatMessage | undefined): string {
  if (!message || message.content == null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => part.text ?? '').join('');
}

function latestUserIndex(messages: ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index].role === 'user') return index;
  return -1;
}

function openAiError(res: ServerResponse, status: number, message: string, type = 'invalid_request_error'): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}

/** A deterministic unit vector from the text, so equal texts embed equally and different texts differ. */
function fakeEmbedding(text: string, dimensions: number): number[] {
  const values: number[] = [];
  let counter = 0;
  while (values.length < dimensions) {
    const digest = createHash('sha256').update(`${counter++}:${text}`).digest();
    for (let i = 0; i + 1 < digest.length && values.length < dimensions; i += 2)
      values.push(digest.readInt16BE(i) / 32768);
  }
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => v / norm);
}

export async function startOpenAiChatFake(options: OpenAiChatFakeOptions = {}): Promise<OpenAiChatFake> {
  const scripts: Script[] = [];
  const transcripts = new Map<string, string>();
  const recorded: RecordedChatRequest[] = [];
  const models = options.models ?? ['gpt-4o-mini', 'gpt-4.1-mini'];
  let nextScriptId = 1;
  let nextCallId = 1;

  // OpenAI's Bearer header, or Anthropic's x-api-key (its model list takes that).
  const authorised = (req: IncomingMessage): boolean =>
    options.apiKey === undefined ||
    req.headers.authorization === `Bearer ${options.apiKey}` ||
    req.headers['x-api-key'] === options.apiKey;
  const prefix = (options.pathPrefix ?? '/v1').replace(/\/+$/, '');
  const apiPath = (pathname: string): string | undefined => {
    if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
    return options.pathPrefix === undefined ? pathname : undefined;
  };

  async function transcription(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let form: FormData;
    try {
      form = await new Response(Buffer.concat(chunks), {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
    } catch {
      return openAiError(res, 400, 'Could not parse multipart form');
    }
    const file = form.get('file');
    if (!file || typeof file === 'string') return openAiError(res, 400, "you must provide a 'file'");
    if (typeof form.get('model') !== 'string') return openAiError(res, 400, "you must provide a 'model'");
    const audio = Buffer.from(await file.arrayBuffer());
    if (!isOggOpus(audio) && !isWave(audio) && !isWebm(audio))
      return openAiError(res, 400, 'Invalid file format. Supported formats: ogg, oga, mp3, wav, webm');
    sendJson(res, 200, { text: transcripts.get(createHash('sha256').update(audio).digest('hex')) ?? '' });
  }

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.');
    }
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0)
      return openAiError(res, 400, "'messages' must be a non-empty array");
    // An id the provider does not serve is OpenAI's 404 (e.g. a caller suffix that should never leave the gateway).
    if (typeof body.model === 'string' && body.model.includes('#'))
      return sendJson(res, 404, {
        error: {
          message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      });
    const userIndex = latestUserIndex(messages);
    const userText = messageText(messages[userIndex]);
    const after = messages.slice(userIndex + 1);
    const step = after.filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
    const lastTool = [...after].reverse().find((m) => m.role === 'tool');
    const fill = (text: string): string => text.split('{{last_tool_result}}').join(messageText(lastTool));

    // A capture's extraction call: never a script's (its conversation holds the words scripts match on).
    const extracting = forcedTool(body) === EXTRACTION_TOOL;
    const script = extracting ? undefined : [...scripts].reverse().find((c) => userText.includes(c.match));
    const userMessages = messages.filter((m) => m.role === 'user');
    recorded.push({
      at: new Date().toISOString(),
      scriptId: script?.id ?? null,
      step: extracting ? userMessages.length - 1 : step,
      authorization: req.headers.authorization,
      body,
    });
    if (recorded.length > MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);

    const planned: ScriptStep = extracting
      ? {
          tool_calls: [
            {
              name: EXTRACTION_TOOL,
              arguments: fakeExtractionArguments(messageText(userMessages[0]), userMessages.length > 1),
            },
          ],
        }
      : script
        ? script.steps[step]
        : { content: `echo: ${withoutContextBlock(userText).slice(0, 200)}` };
    if (!planned) return openAiError(res, 500, `fake script ${script?.id} has no step ${step}`, 'server_error');
    if (planned.delay_ms) await new Promise((resolve) => setTimeout(resolve, planned.delay_ms));
    if ('hang' in planned) return; // the connection stays open until the client gives up or the fake closes
    if ('fail' in planned)
      return openAiError(res, planned.fail.status, planned.fail.message ?? 'The server had an error', 'server_error');

    const offered = new Set((body.tools ?? []).map((tool) => tool.function.name));
    let content: string | null = null;
    let toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
    if ('obey' in planned) {
      const order = /CALL ([a-z_]+) (\{[^\n]*?\})(?=\s|$)/.exec(plainText(messageText(lastTool)));
      if (order && offered.has(order[1])) {
        toolCalls = [
          { id: `call_${nextCallId++}`, type: 'function', function: { name: order[1], arguments: order[2] } },
        ];
      } else content = fill(planned.otherwise ?? '{{last_tool_result}}');
    } else if ('tool_calls' in planned) {
      const missing = planned.tool_calls.filter((call) => !offered.has(call.name)).map((call) => call.name);
      if (missing.length > 0) {
        return openAiError(
          res,
          400,
          `fake script asks for tools not offered: ${missing.join(', ')} (offered: ${[...offered].join(', ')})`,
        );
      }
      toolCalls = planned.tool_calls.map((call) => ({
        id: `call_${nextCallId++}`,
        type: 'function' as const,
        function: {
          name: call.name,
          arguments: JSON.stringify(call.arguments, (_key, value: unknown) =>
            typeof value === 'string' ? fill(value) : value,
          ),
        },
      }));
    } else {
      content = fill(planned.content);
    }

    const id = `chatcmpl-fake${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? models[0];
    // Like a real provider, the tool schemas count as prompt tokens; a window cuts the count to what was kept.
    const promptTokens = (JSON.stringify(messages).length + JSON.stringify(body.tools ?? []).length) >> 2;
    const usage = {
      prompt_tokens: options.contextWindow ? Math.min(promptTokens, options.contextWindow) : promptTokens,
      completion_tokens: (content ?? '').length >> 2,
    };
    const usageBlock = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';

    if (!body.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              refusal: null,
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage: usageBlock,
      });
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null): void => {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
      );
    };
    chunk({ role: 'assistant', content: '' }, null);
    if (content) for (let at = 0; at < content.length; at += 64) chunk({ content: content.slice(at, at + 64) }, null);
    toolCalls.forEach((call, index) => {
      chunk(
        {
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        },
        null,
      );
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null);
    });
    chunk({}, finishReason);
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageBlock })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }

  async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: { input?: string | string[]; model?: string; dimensions?: number; encoding_format?: string };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.');
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.some((input) => typeof input !== 'string')) {
      return openAiError(res, 400, "'input' must be a string or an array of strings");
    }
    const dimensions = body.dimensions ?? 1536;
    sendJson(res, 200, {
      object: 'list',
      data: inputs.map((input, index) => {
        const vector = fakeEmbedding(input, dimensions);
        // `base64` is little-endian float32, as the OpenAI client (which asks for it by default) decodes it
        const embedding =
          body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      }),
      model: body.model ?? 'text-embedding-3-small',
      usage: { prompt_tokens: inputs.join(' ').length >> 2, total_tokens: inputs.join(' ').length >> 2 },
    });
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/__scripts' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { match?: unknown; steps?: unknown };
      if (typeof body.match !== 'string' || body.match === '')
        return sendJson(res, 400, { error: 'match: a non-empty string' });
      if (!Array.isArray(body.steps) || body.steps.length === 0)
        return sendJson(res, 400, { error: 'steps: a non-empty array' });
      const script: Script = { id: `script-${nextScriptId++}`, match: body.match, steps: body.steps as ScriptStep[] };
      scripts.push(script);
      return sendJson(res, 201, { id: script.id });
    }
    if (url.pathname === '/__transcripts' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { sha256?: unknown; text?: unknown };
      if (typeof body.sha256 !== 'string' || typeof body.text !== 'string') {
        return sendJson(res, 400, { error: 'give {sha256, text}' });
      }
      transcripts.set(body.sha256, body.text);
      return sendJson(res, 201, { ok: true });
    }
    if (url.pathname === '/__scripts' && req.method === 'DELETE') {
      scripts.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (url.pathname === '/__requests' && req.method === 'GET') {
      const match = url.searchParams.get('match') ?? '';
      const found = recorded.filter((entry) => {
        const messages = entry.body.messages ?? [];
        return messageText(messages[latestUserIndex(messages)]).includes(match);
      });
      return sendJson(res, 200, found);
    }
    if (url.pathname === '/__requests' && req.method === 'DELETE') {
      recorded.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    sendJson(res, 404, { error: `no control route ${req.method} ${url.pathname}` });
  }

  const running = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/__')) return control(req, res, url);
    const path = apiPath(url.pathname);
    if (path === undefined) return openAiError(res, 404, `Unknown request URL: ${req.method} ${url.pathname}`);
    if (!authorised(req)) return openAiError(res, 401, 'Incorrect API key provided.', 'invalid_request_error');
    if (path === '/chat/completions' && req.method === 'POST') return chatCompletion(req, res);
    if (path === '/embeddings' && req.method === 'POST') return embeddings(req, res);
    if (path === '/audio/transcriptions' && req.method === 'POST') return transcription(req, res);
    if (path === '/models' && req.method === 'GET') {
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })),
      });
    }
    openAiError(res, 404, `Unknown request URL: ${req.method} ${url.pathname}`);
  });
  return { url: running.url, close: running.close };
}

/** Drives a running fake from a test worker. `baseUrl` is the fake's root (without /v1). */
export class OpenAiChatFakeControl {
  constructor(private readonly baseUrl: string) {}

  async addScript(match: string, steps: ScriptStep[]): Promise<string> {
    const response = await fetch(`${this.baseUrl}/__scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match, steps }),
    });
    if (response.status !== 201) throw new Error(`fake openai: adding a script failed: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  /** What the transcription endpoint answers for this audio. */
  async addTranscript(audio: Buffer, text: string): Promise<void> {
    const sha256 = createHash('sha256').update(audio).digest('hex');
    const response = await fetch(`${this.baseUrl}/__transcripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sha256, text }),
    });
    if (response.status !== 201) throw new Error(`fake openai: adding a transcript failed: ${await response.text()}`);
  }

  async requests(match = ''): Promise<RecordedChatRequest[]> {
    const response = await fetch(`${this.baseUrl}/__requests?match=${encodeURIComponent(match)}`);
    return (await response.json()) as RecordedChatRequest[];
  }

  async reset(): Promise<void> {
    await fetch(`${this.baseUrl}/__scripts`, { method: 'DELETE' });
    await fetch(`${this.baseUrl}/__requests`, { method: 'DELETE' });
  }
}

/** A tool message as a model reads it: the strings of a JSON answer (unescaped), or the text itself, without
 * Markdown's backslash escapes (a page read as Markdown says read\\_page). */
function plainText(content: string): string {
  return jsonStrings(content).replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1');
}

function jsonStrings(content: string): string {
  const strings: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  try {
    collect(JSON.parse(content));
  } catch {
    return content;
  }
  return strings.join('\n');
}

/** Whether the bytes are a RIFF/WAVE file (as doctor's half second of silence is). */
/** A Matroska (EBML) stream whose DocType is webm. */
export function isWebm(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])) && bytes.subarray(0, 64).includes('webm');
}

function isWave(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WAVE';
}
