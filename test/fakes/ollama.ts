// A loopback fake Ollama server: the native API, the OpenAI-compatible route, one slot, a prompt cache, reloads and
// the silent cut of a prompt over the window, with scripted answers. Learnt from ollama/ollama (fb30760, Aug 2026)
// and https://github.com/ollama/ollama/blob/main/docs/api.md; no code copied. Real behaviours copied, and where from:
// - GET /api/tags, GET /api/version, GET /api/ps, DELETE /api/delete: docs/api.md, api/types.go.
// - POST /api/show: server/routes.go `GetModelInfo`: `parameters` is one "%-30s %#v" line per parameter (e.g.
//   "num_ctx                        8192"), `model_info["<arch>.context_length"]` the trained maximum, `capabilities`;
//   an unknown model is 404 {"error": "model 'x' not found"}.
// - POST /api/create {model, from, parameters}: server/create.go: the derived model keeps the base's parameters, the
//   given ones win (`setParameters`); streamed as NDJSON {"status": …} lines ending in "success" (server/routes.go
//   `streamResponse`), or one {"status":"success"} with stream:false (`waitForStream`). An unknown `from` is pulled
//   (server/model.go `parseFromModel` → server/images.go `PullModel`): this fake has no registry, so it fails like a
//   name the registry lacks: streamed {"status":"pulling manifest"} then {"error":"pull model manifest: file does not
//   exist"}; with stream:false HTTP 500 and that error (no status is attached, so `waitForStream` says 500).
// - POST /api/chat: server/routes.go `ChatHandler`: NDJSON by default, one JSON with stream:false; tool calls carry
//   `function.arguments` as an object and an id (`toolCallId`); the final object has done_reason and the metrics in
//   nanoseconds. Empty messages load the model (done_reason "load"), with keep_alive 0 unload it ("unload").
//   `truncate` (api/types.go ChatRequest, default true) cuts silently; truncate:false on a too long prompt is 400
//   "the input length exceeds the context length" (runner/ollamarunner `errorInputTooLong`, before llama-server).
// - The window: options.num_ctx (native only), else the model's num_ctx parameter, else OLLAMA_CONTEXT_LENGTH
//   (4096, docs/faq.mdx), capped at the trained maximum (server/sched.go `effectiveContext`). /v1 has no num_ctx
//   (openai/openai.go `FromChatRequest` sets none), so only a model's parameter changes its window there.
// - The cut: see ./ollama-prompt.ts (server/prompt.go `chatPrompt`); the same on /api/chat and /v1.
// - prompt_eval_count counts the cached prefix too (llm/llama_server.go `promptEvalCount` = cache_n + prompt_n, since
//   ollama#16428; runner/ollamarunner reported `numPromptInputs`, also all of them); prompt_eval_duration covers
//   only the evaluated part. /v1 usage.prompt_tokens = prompt_eval_count (openai/openai.go `ToUsage`).
// - One slot (OLLAMA_NUM_PARALLEL=1, docs/faq.mdx): requests run one at a time, in arrival order.
// - Reloads (server/sched.go `needsReload`, `schedulerModelKey`): the runner is keyed by the weights (a derived model
//   shares its base's), so another model's weights or another num_ctx reload it; the cache is then lost.
//   keep_alive (default 5m; 0 unloads after the request; negative keeps it) is checked lazily at the next request.
// - /v1/chat/completions, /v1/models: openai/openai.go, middleware/openai.go (finish_reason "tool_calls" when a stop
//   ended with tool calls, errors as {"error": {message, type, param, code}}).
// - /v1/completions: openai/openai.go `FromCompleteRequest` (the prompt a string, max_tokens → num_predict, stop a
//   string or list, `logprobs` an integer n > 0 → logprobs with n alternatives), run as /api/generate: the prompt is
//   one user message through the template (server/routes.go `GenerateHandler`), cut silently like a chat; answered by
//   `ToCompletion`/`ToCompleteChunk` ("text_completion", usage from the same counts), which copy NO logprobs.
// - Logprobs on /api/chat (logprobs, top_logprobs) and /v1/chat/completions (choices[].logprobs.content): see
//   ./ollama-logprobs.ts.
//
// Control routes (the e2e harness starts fakes in vitest's main process, tests run in workers):
//   POST /__scripts {match, steps} → {id}; DELETE /__scripts; GET /__requests?match=…; DELETE /__requests;
//   GET /__stats; DELETE /__state (everything back to how the fake started).
// Scripts work as in ./openai-chat.ts: matched by the latest user message the model saw, the step is the number of
// tool-call rounds after it; steps are {content} | {tool_calls: [{name, arguments}]} | {fail: {status, message}} |
// {top_logprobs: [{token, logprob}]} (the first token's alternatives; the answer is the likeliest), each with an
// optional delay_ms. An unscripted request gets "echo: <latest user message>" (without a leading context block, as
// ./openai-chat.ts), or, asking for logprobs with a
// message listing "(X) …" options, a deterministic answer over those labels (./ollama-logprobs.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { listenOnLoopback, readBody, sendJson, withoutContextBlock } from './http-util';
import {
  answerLogprobs,
  labelTopLogprobs,
  topLogprobsError,
  type FakeLogprob,
  type ScriptedTopLogprob,
} from './ollama-logprobs';
import {
  countTokens,
  fitToWindow,
  renderMessage,
  sharedPrefixTokens,
  type FakeMessage,
  type FakeToolCall,
} from './ollama-prompt';

export * from './ollama-prompt';
export * from './ollama-logprobs';

export interface OllamaFakeModel {
  /** e.g. "qwen3:8b"; a name without a tag gets ":latest", as Ollama's names do. */
  name: string;
  /** general.architecture, e.g. "qwen3" (model_info keys start with it). */
  family?: string;
  /** The trained maximum, model_info["<family>.context_length"]. */
  contextLength?: number;
  parameterSize?: string;
  /** Modelfile parameters, e.g. {num_ctx: 8192, stop: "<|im_end|>"}. */
  parameters?: Record<string, number | string>;
  capabilities?: string[];
}

export interface OllamaFakeOptions {
  models?: OllamaFakeModel[];
  /** OLLAMA_CONTEXT_LENGTH: the window of a model without a num_ctx; 4096 by default. */
  defaultNumCtx?: number;
  /** Prompt evaluation speed (a CPU does about 100/s); unset: instant. */
  promptTokensPerSecond?: number;
  /** Generation speed; unset: instant. */
  outputTokensPerSecond?: number;
  /** Simulated time to load a model; 0 by default. */
  loadMs?: number;
  /** Real sleep = simulated time × timeScale (1 by default), never more than 10 s per request. */
  timeScale?: number;
  version?: string;
}

export interface OllamaFake {
  url: string;
  close(): Promise<void>;
}

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type OllamaScriptStep = { delay_ms?: number } & (
  | { content: string }
  | { tool_calls: ScriptedToolCall[] }
  | { top_logprobs: ScriptedTopLogprob[] }
  | { fail: { status: number; message?: string } }
);

export interface RecordedOllamaRequest {
  at: string;
  route: '/api/chat' | '/v1/chat/completions' | '/v1/completions';
  model: string;
  numCtx: number;
  reloaded: boolean;
  scriptId: string | null;
  step: number;
  /** The messages as sent, and as the model saw them after a cut. */
  messagesSent: number;
  seenMessages: FakeMessage[];
  /** The rendered prompt the model saw. */
  seenPrompt: string;
  cut: { droppedMessages: number; droppedTokens: number; midPromptCut: boolean } | null;
  promptEvalCount: number;
  cachedTokens: number;
  evaluatedTokens: number;
  body: unknown;
}

export interface OllamaFakeStats {
  requests: number;
  reloads: number;
  loaded: { model: string; numCtx: number } | null;
  cuts: number;
  /** Most chat requests ever served at once (1: the slot works) and ever waiting or served at once. */
  maxConcurrent: number;
  maxInFlight: number;
  /** Models made by POST /api/create. */
  creates: number;
}

interface StoredModel {
  name: string;
  family: string;
  contextLength: number;
  parameterSize: string;
  parameters: Record<string, number | string>;
  capabilities: string[];
  parent: string;
  /** The base weights' name: the runner's key. */
  weights: string;
  digest: string;
  modifiedAt: string;
}

interface LoadedModel {
  weights: string;
  model: string;
  numCtx: number;
  /** The slot's cache: the last prompt and the answer generated after it. */
  cache: string;
  expiresAt: number;
}

/** Ollama's chat request after either route's parsing. */
interface ChatCall {
  route: RecordedOllamaRequest['route'];
  model: string;
  messages: FakeMessage[];
  tools: Array<{ type?: string; function?: { name?: string } }>;
  stream: boolean;
  includeUsage: boolean;
  numCtx: number | undefined;
  numPredict: number | undefined;
  stop: string[];
  /** logprobs asked for, with this many alternatives per token (0: none). */
  logprobs: boolean;
  topLogprobs: number;
  keepAliveMs: number | undefined;
  truncate: boolean;
  body: unknown;
}

interface Answer {
  content: string;
  toolCalls: FakeToolCall[];
  doneReason: 'stop' | 'length';
  logprobs: FakeLogprob[] | null;
  metrics: {
    total_duration: number;
    load_duration: number;
    prompt_eval_count: number;
    prompt_eval_duration: number;
    eval_count: number;
    eval_duration: number;
  };
  /** Real milliseconds to wait before the first chunk, and spread over the answer. */
  waitBeforeMs: number;
  waitDuringMs: number;
}

class FakeHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_RECORDED = 400;
const MAX_SLEEP_MS = 10_000;
const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;
const NS_PER_MS = 1_000_000;

export const DEFAULT_OLLAMA_MODELS: OllamaFakeModel[] = [
  { name: 'qwen3:8b', family: 'qwen3', contextLength: 40960, parameterSize: '8.2B' },
  { name: 'llama3.2:3b', family: 'llama', contextLength: 131072, parameterSize: '3.2B' },
];

const FAKE_TEMPLATE =
  '{{- if .Tools }}<|im_start|>system\n# Tools\n<tools>{{ range .Tools }}{{ . }}{{ end }}</tools><|im_end|>\n{{ end }}' +
  '{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n';

/** "llama3.2" → "llama3.2:latest", as Ollama completes a name without a tag. */
export function normalizeModelName(name: string): string {
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? name : `${name}:latest`;
}

/** Ollama's durations (api/types.go `Duration`): a number of seconds, or a Go duration ("5m", "1h30m", "0"). */
export function keepAliveMs(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return value < 0 ? Infinity : value * 1000;
  if (typeof value !== 'string') throw new FakeHttpError(400, `invalid keep_alive: ${JSON.stringify(value)}`);
  if (/^-/.test(value)) return Infinity;
  if (value === '0') return 0;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value) {
    throw new FakeHttpError(400, `time: missing unit in duration "${value}"`);
  }
  return parts.reduce((sum, part) => sum + Number(part[1]) * units[part[2]], 0);
}

function parametersText(parameters: Record<string, number | string>): string {
  return Object.entries(parameters)
    .map(([key, value]) => `${key.padEnd(30)} ${typeof value === 'string' ? JSON.stringify(value) : value}`)
    .join('\n');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function toolCallId(): string {
  return `call_${randomBytes(4).toString('hex')}`;
}

/** A scripted first token's likeliest alternative: what the model answers. */
function topToken(top: ScriptedTopLogprob[]): string {
  return top.reduce((best, entry) => (entry.logprob > best.logprob ? entry : best), top[0] ?? { token: '' }).token;
}

/** The answer up to the first stop sequence (options.stop; Ollama leaves the stop sequence out). */
function cutAtStop(content: string, stop: string[]): string {
  const at = Math.min(...stop.map((sequence) => content.indexOf(sequence)).filter((index) => index >= 0));
  return Number.isFinite(at) ? content.slice(0, at) : content;
}

/** A request's stop: a string or a list of strings (openai/openai.go `FromCompleteRequest`). */
function stopList(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop)) {
    const wrong = stop.find((item) => typeof item !== 'string');
    if (wrong !== undefined) throw new FakeHttpError(400, `invalid type for 'stop' field: ${goType(wrong)}`);
    return stop as string[];
  }
  return [];
}

const goType = (value: unknown): string =>
  typeof value === 'number'
    ? 'float64'
    : typeof value === 'boolean'
      ? 'bool'
      : value === null
        ? '<nil>'
        : 'map[string]interface {}';

/** top_logprobs as asked, checked as Ollama does. */
function topLogprobsOf(value: unknown): number {
  const topLogprobs = typeof value === 'number' ? value : 0;
  const error = topLogprobsError(topLogprobs);
  if (error) throw new FakeHttpError(400, error);
  return topLogprobs;
}

function latestUserIndex(messages: FakeMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index].role === 'user') return index;
  return -1;
}

const sleep = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

export async function startOllamaFake(options: OllamaFakeOptions = {}): Promise<OllamaFake> {
  const defaultNumCtx = options.defaultNumCtx ?? 4096;
  const timeScale = options.timeScale ?? 1;
  const models = new Map<string, StoredModel>();
  const scripts: Array<{ id: string; match: string; steps: OllamaScriptStep[] }> = [];
  const recorded: RecordedOllamaRequest[] = [];
  let stats: OllamaFakeStats;
  let loaded: LoadedModel | null;
  let slot: Promise<void>;
  let serving: number;
  let inFlight: number;
  let nextScriptId: number;

  function addModel(model: OllamaFakeModel, parent = '', weights?: string): StoredModel {
    const name = normalizeModelName(model.name);
    const stored: StoredModel = {
      name,
      family: model.family ?? 'llama',
      contextLength: model.contextLength ?? 131072,
      parameterSize: model.parameterSize ?? '8.0B',
      parameters: { ...(model.parameters ?? {}) },
      capabilities: model.capabilities ?? ['completion', 'tools'],
      parent,
      weights: weights ?? name,
      digest: sha256(`${name}${JSON.stringify(model.parameters ?? {})}`),
      modifiedAt: new Date().toISOString(),
    };
    models.set(name, stored);
    return stored;
  }

  function reset(): void {
    models.clear();
    for (const model of options.models ?? DEFAULT_OLLAMA_MODELS) addModel(model);
    scripts.length = 0;
    recorded.length = 0;
    stats = { requests: 0, reloads: 0, loaded: null, cuts: 0, maxConcurrent: 0, maxInFlight: 0, creates: 0 };
    loaded = null;
    slot = Promise.resolve();
    serving = 0;
    inFlight = 0;
    nextScriptId = 1;
  }
  reset();

  const findModel = (name: unknown): StoredModel | undefined =>
    typeof name === 'string' && name !== '' ? models.get(normalizeModelName(name)) : undefined;

  function details(model: StoredModel) {
    return {
      parent_model: model.parent,
      format: 'gguf',
      family: model.family,
      families: [model.family],
      parameter_size: model.parameterSize,
      quantization_level: 'Q4_K_M',
    };
  }

  function show(model: StoredModel) {
    const parameters = parametersText(model.parameters);
    const parameterLines = Object.entries(model.parameters)
      .map(([key, value]) => `PARAMETER ${key} ${typeof value === 'string' ? JSON.stringify(value) : value}\n`)
      .join('');
    return {
      modelfile:
        `# Modelfile generated by "ollama show"\n# To build a new Modelfile based on this, replace FROM with:\n` +
        `# FROM ${model.name}\n\nFROM /root/.ollama/models/blobs/sha256-${sha256(model.weights)}\n` +
        `TEMPLATE """${FAKE_TEMPLATE}"""\n${parameterLines}`,
      parameters,
      template: FAKE_TEMPLATE,
      details: details(model),
      model_info: {
        'general.architecture': model.family,
        'general.parameter_count': 8_000_000_000,
        [`${model.family}.context_length`]: model.contextLength,
        [`${model.family}.embedding_length`]: 4096,
      },
      capabilities: model.capabilities,
      modified_at: model.modifiedAt,
    };
  }

  function create(body: Record<string, unknown>): { lines: unknown[]; error?: { status: number; message: string } } {
    const name = typeof body.model === 'string' ? body.model : '';
    if (!name) return { lines: [], error: { status: 400, message: 'invalid model name' } };
    if (typeof body.from !== 'string' || body.from === '') {
      return { lines: [], error: { status: 400, message: "neither 'from' or 'files' was specified" } };
    }
    const base = findModel(body.from);
    if (!base) {
      return {
        lines: [{ status: 'pulling manifest' }],
        error: { status: 500, message: 'pull model manifest: file does not exist' },
      };
    }
    const given = (body.parameters ?? {}) as Record<string, number | string>;
    const created = addModel(
      {
        name,
        family: base.family,
        contextLength: base.contextLength,
        parameterSize: base.parameterSize,
        parameters: { ...base.parameters, ...given },
        capabilities: base.capabilities,
      },
      base.name,
      base.weights,
    );
    stats.creates++;
    return {
      lines: [
        { status: `using existing layer sha256:${sha256(base.weights)}` },
        { status: `using existing layer sha256:${sha256(FAKE_TEMPLATE)}` },
        { status: `creating new layer sha256:${sha256(JSON.stringify(created.parameters))}` },
        { status: 'writing manifest' },
        { status: 'success' },
      ],
    };
  }

  /** Waits for the one slot (in arrival order), runs `work` in it and frees it. */
  async function inSlot<T>(work: () => Promise<T>): Promise<T> {
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    const previous = slot;
    let release!: () => void;
    slot = new Promise<void>((resolve) => (release = resolve));
    await previous;
    serving++;
    stats.maxConcurrent = Math.max(stats.maxConcurrent, serving);
    try {
      return await work();
    } finally {
      serving--;
      inFlight--;
      release();
    }
  }

  /** Makes the model (with this window) the loaded one; true when that was a (re)load. */
  function load(model: StoredModel, numCtx: number): boolean {
    if (loaded && Date.now() > loaded.expiresAt) loaded = null;
    const reload = !loaded || loaded.weights !== model.weights || loaded.numCtx !== numCtx;
    if (reload) {
      stats.reloads++;
      loaded = { weights: model.weights, model: model.name, numCtx, cache: '', expiresAt: Infinity };
    }
    loaded!.model = model.name;
    stats.loaded = { model: model.name, numCtx };
    return reload;
  }

  function keepAlive(ms: number | undefined): void {
    if (!loaded) return;
    if (ms === 0) {
      loaded = null;
      stats.loaded = null;
    } else loaded.expiresAt = Date.now() + (ms ?? DEFAULT_KEEP_ALIVE_MS);
  }

  function windowOf(model: StoredModel, requested: number | undefined): number {
    const parameter = Number(model.parameters.num_ctx);
    const numCtx = requested ?? (Number.isFinite(parameter) && parameter > 0 ? parameter : defaultNumCtx);
    return Math.max(4, Math.min(numCtx, model.contextLength));
  }

  function scriptedStep(seen: FakeMessage[], call: ChatCall) {
    const userIndex = latestUserIndex(seen);
    const userText = seen[userIndex]?.content ?? '';
    const after = seen.slice(userIndex + 1);
    const step = after.filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
    const script = [...scripts].reverse().find((candidate) => userText.includes(candidate.match));
    const labelled = call.logprobs ? labelTopLogprobs(userText) : [];
    const planned: OllamaScriptStep | undefined = script
      ? script.steps[step]
      : labelled.length > 0
        ? { top_logprobs: labelled }
        : { content: `echo: ${withoutContextBlock(userText).slice(0, 200)}` };
    if (!planned) throw new FakeHttpError(500, `fake script ${script?.id} has no step ${step}`);
    if ('tool_calls' in planned) {
      const offered = new Set(call.tools.map((tool) => tool.function?.name));
      const missing = planned.tool_calls.filter((tc) => !offered.has(tc.name)).map((tc) => tc.name);
      if (missing.length > 0) throw new FakeHttpError(500, `fake script asks for tools not offered: ${missing}`);
    }
    return { scriptId: script?.id ?? null, step, planned };
  }

  /** Everything a chat request does inside the slot, up to the answer (which the caller writes, still in it). */
  async function runChat(call: ChatCall): Promise<Answer | 'loaded' | 'unloaded'> {
    const model = findModel(call.model);
    if (!model) throw new FakeHttpError(404, `model '${call.model}' not found`);
    const numCtx = windowOf(model, call.numCtx);
    if (call.messages.length === 0 && call.keepAliveMs === 0) {
      if (loaded?.weights === model.weights) keepAlive(0);
      return 'unloaded';
    }
    const reloaded = load(model, numCtx);
    const loadMs = reloaded ? (options.loadMs ?? 0) : 0;
    if (call.messages.length === 0) {
      keepAlive(call.keepAliveMs);
      await sleep(Math.min(loadMs * timeScale, MAX_SLEEP_MS));
      return 'loaded';
    }

    const fitted = fitToWindow(call.messages, call.tools, numCtx);
    const cut = fitted.droppedTokens > 0;
    if (cut && !call.truncate) throw new FakeHttpError(400, 'the input length exceeds the context length');
    const { scriptId, step, planned } = scriptedStep(fitted.messages, call);
    if ('fail' in planned) throw new FakeHttpError(planned.fail.status, planned.fail.message ?? 'fake failure');

    const cachedTokens = Math.min(sharedPrefixTokens(loaded!.cache, fitted.prompt), fitted.tokens - 1);
    const evaluatedTokens = fitted.tokens - cachedTokens;
    const lastTool = [...fitted.messages].reverse().find((m) => m.role === 'tool');
    const fill = (text: string): string => text.split('{{last_tool_result}}').join(lastTool?.content ?? '');
    let content = '';
    let toolCalls: FakeToolCall[] = [];
    let doneReason: Answer['doneReason'] = 'stop';
    if ('tool_calls' in planned) {
      toolCalls = planned.tool_calls.map((tc, index) => ({
        id: toolCallId(),
        function: {
          index,
          name: tc.name,
          arguments: JSON.parse(
            JSON.stringify(tc.arguments, (_key, value: unknown) => (typeof value === 'string' ? fill(value) : value)),
          ) as Record<string, unknown>,
        },
      }));
    } else {
      content = 'content' in planned ? fill(planned.content) : topToken(planned.top_logprobs);
      content = cutAtStop(content, call.stop);
      if (call.numPredict !== undefined && call.numPredict >= 0 && countTokens(content) > call.numPredict) {
        content = content.slice(0, call.numPredict * 4);
        doneReason = 'length';
      }
    }
    const scriptedTop = 'top_logprobs' in planned ? planned.top_logprobs : undefined;
    const logprobs = call.logprobs ? answerLogprobs(content, call.topLogprobs, scriptedTop) : null;
    const answerText = renderMessage({ role: 'assistant', content, tool_calls: toolCalls });
    const evalCount = Math.max(1, countTokens(answerText) - countTokens(renderMessage({ role: 'assistant' })));
    loaded!.cache = fitted.prompt + answerText;
    keepAlive(call.keepAliveMs);

    const promptMs = options.promptTokensPerSecond ? (evaluatedTokens / options.promptTokensPerSecond) * 1000 : 0;
    const evalMs = options.outputTokensPerSecond ? (evalCount / options.outputTokensPerSecond) * 1000 : 0;
    const totalMs = loadMs + promptMs + evalMs + (planned.delay_ms ?? 0);
    const realTotal = Math.min(totalMs * timeScale, MAX_SLEEP_MS);
    const realDuring = totalMs > 0 ? (realTotal * evalMs) / totalMs : 0;

    if (cut) stats.cuts++;
    stats.requests++;
    recorded.push({
      at: new Date().toISOString(),
      route: call.route,
      model: model.name,
      numCtx,
      reloaded,
      scriptId,
      step,
      messagesSent: call.messages.length,
      seenMessages: fitted.messages,
      seenPrompt: fitted.prompt,
      cut: cut
        ? {
            droppedMessages: fitted.droppedMessages,
            droppedTokens: fitted.droppedTokens,
            midPromptCut: fitted.midPromptCut,
          }
        : null,
      promptEvalCount: fitted.tokens,
      cachedTokens,
      evaluatedTokens,
      body: call.body,
    });
    if (recorded.length > MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);

    const ns = (ms: number): number => Math.max(1, Math.round(ms * NS_PER_MS));
    return {
      content,
      toolCalls,
      doneReason,
      logprobs,
      metrics: {
        total_duration: ns(totalMs),
        load_duration: ns(loadMs),
        prompt_eval_count: fitted.tokens,
        prompt_eval_duration: ns(promptMs),
        eval_count: evalCount,
        eval_duration: ns(evalMs),
      },
      waitBeforeMs: realTotal - realDuring,
      waitDuringMs: realDuring,
    };
  }

  /** The answer's text in pieces for streaming, the logprobs of each piece's tokens, and the time between them. */
  function pieces(answer: Answer): { parts: string[]; pauseMs: number; partLogprobs: FakeLogprob[][] } {
    const parts: string[] = [];
    for (let at = 0; at < answer.content.length; at += 32) parts.push(answer.content.slice(at, at + 32));
    const partLogprobs = parts.map((): FakeLogprob[] => []);
    let offset = 0;
    for (const entry of answer.logprobs ?? []) {
      partLogprobs[Math.min(Math.floor(offset / 32), parts.length - 1)]?.push(entry);
      offset += entry.token.length;
    }
    const pauseMs = answer.waitDuringMs / Math.max(1, parts.length + (answer.toolCalls.length ? 1 : 0));
    return { parts, pauseMs, partLogprobs };
  }

  async function nativeChat(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const requestOptions = (body.options ?? {}) as Record<string, unknown>;
    const call: ChatCall = {
      route: '/api/chat',
      model: String(body.model ?? ''),
      messages: (body.messages ?? []) as FakeMessage[],
      tools: (body.tools ?? []) as ChatCall['tools'],
      stream: body.stream !== false,
      includeUsage: false,
      numCtx: typeof requestOptions.num_ctx === 'number' ? requestOptions.num_ctx : undefined,
      numPredict: typeof requestOptions.num_predict === 'number' ? requestOptions.num_predict : undefined,
      stop: stopList(requestOptions.stop),
      logprobs: body.logprobs === true,
      topLogprobs: topLogprobsOf(body.top_logprobs),
      keepAliveMs: keepAliveMs(body.keep_alive),
      truncate: body.truncate !== false,
      body,
    };
    const base = (): Record<string, unknown> => ({ model: call.model, created_at: new Date().toISOString() });
    await inSlot(async () => {
      const answer = await runChat(call);
      if (answer === 'loaded' || answer === 'unloaded') {
        return sendJson(res, 200, {
          ...base(),
          message: { role: 'assistant', content: '' },
          done_reason: answer === 'loaded' ? 'load' : 'unload',
          done: true,
        });
      }
      await sleep(answer.waitBeforeMs);
      const final = {
        message: { role: 'assistant', content: call.stream ? '' : answer.content },
        ...(!call.stream && answer.logprobs?.length ? { logprobs: answer.logprobs } : {}),
        done_reason: answer.doneReason,
        done: true,
        ...answer.metrics,
      };
      if (!call.stream) {
        await sleep(answer.waitDuringMs);
        if (answer.toolCalls.length > 0) Object.assign(final.message, { tool_calls: answer.toolCalls });
        return sendJson(res, 200, { ...base(), ...final });
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const { parts, pauseMs, partLogprobs } = pieces(answer);
      for (const [index, part] of parts.entries()) {
        const logprobs = partLogprobs[index].length ? { logprobs: partLogprobs[index] } : {};
        const line = { ...base(), message: { role: 'assistant', content: part }, ...logprobs, done: false };
        res.write(`${JSON.stringify(line)}\n`);
        await sleep(pauseMs);
      }
      if (answer.toolCalls.length > 0) {
        const message = { role: 'assistant', content: '', tool_calls: answer.toolCalls };
        res.write(`${JSON.stringify({ ...base(), message, done: false })}\n`);
        await sleep(pauseMs);
      }
      res.end(`${JSON.stringify({ ...base(), ...final })}\n`);
    });
  }

  /** The OpenAI-compatible route: openai/openai.go `FromChatRequest`, `ToChatCompletion`, `ToChunk`. */
  async function openAiChat(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    type OpenAiMessage = {
      role: string;
      content?: string | Array<{ type: string; text?: string }> | null;
      tool_calls?: Array<{ id?: string; function: { name: string; arguments: string } }>;
      tool_call_id?: string;
      name?: string;
    };
    const sent = (body.messages ?? []) as OpenAiMessage[];
    const messages: FakeMessage[] = sent.map((message) => ({
      role: message.role,
      content: Array.isArray(message.content)
        ? message.content.map((part) => part.text ?? '').join('')
        : (message.content ?? ''),
      ...(message.tool_calls
        ? {
            tool_calls: message.tool_calls.map((tc) => ({
              id: tc.id,
              function: { name: tc.function.name, arguments: JSON.parse(tc.function.arguments || '{}') },
            })),
          }
        : {}),
      ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
    }));
    const streamOptions = (body.stream_options ?? {}) as { include_usage?: boolean };
    const call: ChatCall = {
      route: '/v1/chat/completions',
      model: String(body.model ?? ''),
      messages,
      tools: (body.tools ?? []) as ChatCall['tools'],
      stream: body.stream === true,
      includeUsage: streamOptions.include_usage === true,
      numCtx: undefined,
      numPredict: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      stop: stopList(body.stop),
      logprobs: body.logprobs === true,
      topLogprobs: topLogprobsOf(body.top_logprobs),
      keepAliveMs: undefined,
      truncate: true,
      body,
    };
    await inSlot(async () => {
      const answer = await runChat(call);
      if (answer === 'loaded' || answer === 'unloaded') throw new FakeHttpError(400, "'messages' is required");
      await sleep(answer.waitBeforeMs);
      const id = `chatcmpl-${Math.floor(Math.random() * 1000)}`;
      const created = Math.floor(Date.now() / 1000);
      const toolCalls = answer.toolCalls.map((tc, index) => ({
        id: tc.id,
        index,
        type: 'function',
        function: { name: tc.function.name, arguments: JSON.stringify(tc.function.arguments) },
      }));
      const finishReason = answer.doneReason === 'stop' && toolCalls.length > 0 ? 'tool_calls' : answer.doneReason;
      const usage = {
        prompt_tokens: answer.metrics.prompt_eval_count,
        completion_tokens: answer.metrics.eval_count,
        total_tokens: answer.metrics.prompt_eval_count + answer.metrics.eval_count,
      };
      const head = { id, created, model: call.model, system_fingerprint: 'fp_ollama' };
      if (!call.stream) {
        await sleep(answer.waitDuringMs);
        return sendJson(res, 200, {
          ...head,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: answer.content,
                ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finishReason,
              ...(answer.logprobs?.length ? { logprobs: { content: answer.logprobs } } : {}),
            },
          ],
          usage,
        });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, finish: string | null, logprobs: FakeLogprob[] = []): void => {
        const choice = {
          index: 0,
          delta,
          finish_reason: finish,
          ...(logprobs.length ? { logprobs: { content: logprobs } } : {}),
        };
        res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [choice] })}\n\n`);
      };
      const { parts, pauseMs, partLogprobs } = pieces(answer);
      for (const [index, part] of parts.entries()) {
        chunk({ role: 'assistant', content: part }, null, partLogprobs[index]);
        await sleep(pauseMs);
      }
      if (toolCalls.length > 0) {
        chunk({ role: 'assistant', content: '', tool_calls: toolCalls }, null);
        await sleep(pauseMs);
      }
      chunk({}, finishReason);
      if (call.includeUsage) {
        res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  }

  /**
   * /v1/completions: openai/openai.go `FromCompleteRequest` makes it a generate request (the prompt is one user
   * message through the chat template, cut like a chat), middleware/openai.go `CompleteWriter` + `ToCompletion` /
   * `ToCompleteChunk` answer it. `logprobs` (an integer) is checked and asked for, but the answer carries none:
   * neither ToCompletion nor ToCompleteChunk copies them.
   */
  async function openAiCompletion(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    if (body.prompt !== undefined && typeof body.prompt !== 'string') {
      const kind = Array.isArray(body.prompt) ? 'array' : typeof body.prompt;
      throw new FakeHttpError(
        400,
        `json: cannot unmarshal ${kind} into Go struct field CompletionRequest.prompt of type string`,
      );
    }
    const prompt = (body.prompt as string | undefined) ?? '';
    const topLogprobs = typeof body.logprobs === 'number' && body.logprobs > 0 ? body.logprobs : 0;
    const streamOptions = (body.stream_options ?? {}) as { include_usage?: boolean };
    const call: ChatCall = {
      route: '/v1/completions',
      model: String(body.model ?? ''),
      messages: prompt === '' ? [] : [{ role: 'user', content: prompt }],
      tools: [],
      stream: body.stream === true,
      includeUsage: streamOptions.include_usage === true,
      numCtx: undefined,
      numPredict: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      stop: stopList(body.stop),
      logprobs: topLogprobs > 0,
      topLogprobs: topLogprobsOf(topLogprobs),
      keepAliveMs: undefined,
      truncate: true,
      body,
    };
    await inSlot(async () => {
      const answer = await runChat(call);
      const id = `cmpl-${Math.floor(Math.random() * 999)}`;
      const created = Math.floor(Date.now() / 1000);
      const completion = (text: string, finish: string | null) => ({
        id,
        object: 'text_completion',
        created,
        choices: [{ text, index: 0, finish_reason: finish }],
        model: call.model,
        system_fingerprint: 'fp_ollama',
      });
      if (answer === 'unloaded' || answer === 'loaded') {
        const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
        if (!call.stream) return sendJson(res, 200, { ...completion('', 'load'), usage });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end(`data: ${JSON.stringify(completion('', 'load'))}\n\ndata: [DONE]\n\n`);
      }
      await sleep(answer.waitBeforeMs);
      const usage = {
        prompt_tokens: answer.metrics.prompt_eval_count,
        completion_tokens: answer.metrics.eval_count,
        total_tokens: answer.metrics.prompt_eval_count + answer.metrics.eval_count,
      };
      if (!call.stream) {
        await sleep(answer.waitDuringMs);
        return sendJson(res, 200, { ...completion(answer.content, answer.doneReason), usage });
      }
      // Every chunk carries a zero usage when include_usage is on; the real one follows the last, with no choices.
      const zero = call.includeUsage ? { usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } } : {};
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const { parts, pauseMs } = pieces(answer);
      for (const part of parts) {
        res.write(`data: ${JSON.stringify({ ...completion(part, null), ...zero })}\n\n`);
        await sleep(pauseMs);
      }
      res.write(`data: ${JSON.stringify({ ...completion('', answer.doneReason), ...zero })}\n\n`);
      if (call.includeUsage) res.write(`data: ${JSON.stringify({ ...completion('', null), choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /__scripts') {
      const body = JSON.parse(await readBody(req)) as { match?: unknown; steps?: unknown };
      if (typeof body.match !== 'string' || body.match === '') return sendJson(res, 400, { error: 'match: a string' });
      if (!Array.isArray(body.steps) || body.steps.length === 0)
        return sendJson(res, 400, { error: 'steps: an array' });
      const script = { id: `script-${nextScriptId++}`, match: body.match, steps: body.steps as OllamaScriptStep[] };
      scripts.push(script);
      return sendJson(res, 201, { id: script.id });
    }
    if (route === 'DELETE /__scripts') {
      scripts.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (route === 'GET /__requests') {
      const match = url.searchParams.get('match') ?? '';
      const found = recorded.filter((entry) =>
        entry.seenMessages.some((message) => message.role === 'user' && (message.content ?? '').includes(match)),
      );
      return sendJson(res, 200, found);
    }
    if (route === 'DELETE /__requests') {
      recorded.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (route === 'GET /__stats') return sendJson(res, 200, stats);
    if (route === 'DELETE /__state') {
      reset();
      return sendJson(res, 200, { ok: true });
    }
    sendJson(res, 404, { error: `no control route ${route}` });
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /api/version') return sendJson(res, 200, { version: options.version ?? '0.12.6' });
    if (route === 'GET /api/tags') {
      return sendJson(res, 200, {
        models: [...models.values()].map((model) => ({
          name: model.name,
          model: model.name,
          modified_at: model.modifiedAt,
          size: 5_000_000_000,
          digest: model.digest,
          details: details(model),
        })),
      });
    }
    if (route === 'GET /api/ps') {
      const running = loaded && Date.now() <= loaded.expiresAt ? findModel(loaded.model) : undefined;
      return sendJson(res, 200, {
        models: running
          ? [
              {
                name: running.name,
                model: running.name,
                size: 6_000_000_000,
                digest: running.digest,
                details: details(running),
                expires_at: new Date(Math.min(loaded!.expiresAt, 8.64e15)).toISOString(),
                size_vram: 0,
                context_length: loaded!.numCtx,
              },
            ]
          : [],
      });
    }
    if (route === 'GET /v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [...models.values()].map((model) => ({
          id: model.name,
          object: 'model',
          created: Math.floor(Date.parse(model.modifiedAt) / 1000),
          owned_by: 'library',
        })),
      });
    }
    if (req.method !== 'POST' && req.method !== 'DELETE') throw new FakeHttpError(404, '404 page not found');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      throw new FakeHttpError(400, 'invalid character in request body');
    }
    if (route === 'POST /api/show') {
      const model = findModel(body.model ?? body.name);
      if (!model) throw new FakeHttpError(404, `model '${String(body.model ?? body.name)}' not found`);
      return sendJson(res, 200, show(model));
    }
    if (route === 'DELETE /api/delete') {
      const model = findModel(body.model ?? body.name);
      if (!model) throw new FakeHttpError(404, `model '${String(body.model ?? body.name)}' not found`);
      models.delete(model.name);
      res.writeHead(200).end();
      return;
    }
    if (route === 'POST /api/create') {
      const { lines, error } = create(body);
      if (body.stream === false) {
        if (error) throw new FakeHttpError(error.status, error.message);
        return sendJson(res, 200, lines[lines.length - 1]);
      }
      if (error && lines.length === 0) throw new FakeHttpError(error.status, error.message);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const line of lines) res.write(`${JSON.stringify(line)}\n`);
      res.end(error ? `${JSON.stringify({ error: error.message })}\n` : '');
      return;
    }
    if (route === 'POST /api/chat') return nativeChat(body, res);
    if (route === 'POST /v1/chat/completions') return openAiChat(body, res);
    if (route === 'POST /v1/completions') return openAiCompletion(body, res);
    throw new FakeHttpError(404, '404 page not found');
  }

  const running = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/__')) return control(req, res, url);
    try {
      await api(req, res, url);
    } catch (error) {
      if (!(error instanceof FakeHttpError)) throw error;
      if (res.headersSent) return void res.end(`${JSON.stringify({ error: error.message })}\n`);
      if (url.pathname.startsWith('/v1/')) {
        const type = { 400: 'invalid_request_error', 404: 'not_found_error' }[error.status] ?? 'api_error';
        return sendJson(res, error.status, { error: { message: error.message, type, param: null, code: null } });
      }
      sendJson(res, error.status, { error: error.message });
    }
  });
  return { url: running.url, close: running.close };
}

/** Drives a running fake from a test worker. */
export class OllamaFakeControl {
  constructor(private readonly baseUrl: string) {}

  async addScript(match: string, steps: OllamaScriptStep[]): Promise<string> {
    const response = await fetch(`${this.baseUrl}/__scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match, steps }),
    });
    if (response.status !== 201) throw new Error(`fake ollama: adding a script failed: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  async requests(match = ''): Promise<RecordedOllamaRequest[]> {
    const response = await fetch(`${this.baseUrl}/__requests?match=${encodeURIComponent(match)}`);
    return (await response.json()) as RecordedOllamaRequest[];
  }

  async stats(): Promise<OllamaFakeStats> {
    return (await (await fetch(`${this.baseUrl}/__stats`)).json()) as OllamaFakeStats;
  }

  async reset(): Promise<void> {
    await fetch(`${this.baseUrl}/__state`, { method: 'DELETE' });
  }
}
