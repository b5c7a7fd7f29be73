// Ollama models with the window the gateway wants: a "derived" model (`FROM <model>` + `PARAMETER num_ctx N`) is
// created once through Ollama's API, so that every route, /v1 included, runs the model with that window and no
// request ever changes it (a changed num_ctx reloads the model and drops its prompt cache).
// Learnt from ollama/ollama (fb30760, Aug 2026), no code copied; the real behaviour each part relies on:
// - POST /api/show (server/routes.go `GetModelInfo`): `model_info["<arch>.context_length"]` is the trained maximum;
//   `parameters` is text, one "%-30s %#v" line per parameter ("num_ctx                        8192"); an unknown
//   model is 404 {"error": "model 'x' not found"}.
// - POST /api/create {model, from, parameters, stream:false} (server/create.go, docs/api.md "Create a Model"): the
//   new model keeps the base's parameters with the given ones winning, and shares its weights (no copy); the answer
//   is {"status":"success"}, or {"error": …} with a status (a `from` missing locally is first pulled, so a name the
//   registry lacks fails with "pull model manifest: file does not exist", HTTP 500).
// - A num_ctx over the trained maximum is cut to it anyway (server/sched.go `effectiveContext`); we ask no more.
// - GET /api/version {"version": "…"} (docs/api.md "Version") tells an Ollama from other OpenAI-compatible servers.
//
// Naming rule (deterministic, readable in `ollama list`): the derived model of `name:tag` with window N is
// `name:tag-ctxN` (a missing tag is "latest"; a tag already ending in "-ctx<digits>" has that part replaced).
// E.g. qwen3:8b → qwen3:8b-ctx16384, llama3.2 → llama3.2:latest-ctx8192.

const SHOW_TIMEOUT_MS = 15_000;
const CREATE_TIMEOUT_MS = 120_000;
const VERSION_TIMEOUT_MS = 5_000;

/** A model Ollama does not have, or could not derive; the message names the model and says what Ollama said. */
export class OllamaModelError extends Error {
  constructor(
    readonly model: string,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'OllamaModelError';
  }
}

export interface DerivedModel {
  name: string;
  numCtx: number;
  trainedMax: number | null;
  created: boolean;
}

interface ShowAnswer {
  parameters?: string;
  model_info?: Record<string, unknown>;
}

/** The Ollama root for a base URL given with or without `/v1`. */
export function ollamaRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** See the naming rule in the header. */
export function derivedModelName(model: string, numCtx: number): string {
  const slash = model.lastIndexOf('/');
  const colon = model.indexOf(':', slash + 1);
  const name = colon === -1 ? model : model.slice(0, colon);
  const tag = colon === -1 ? 'latest' : model.slice(colon + 1);
  return `${name}:${tag.replace(/-ctx\d+$/, '')}-ctx${numCtx}`;
}

/** The trained maximum from /api/show's model_info (`<arch>.context_length`), or null when it is not there. */
export function trainedMaximumOf(show: ShowAnswer): number | null {
  const info = show.model_info ?? {};
  const arch = info['general.architecture'];
  const exact = typeof arch === 'string' ? info[`${arch}.context_length`] : undefined;
  const value = exact ?? Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1];
  return typeof value === 'number' && value > 0 ? value : null;
}

/** num_ctx from /api/show's `parameters` text, or null when the model sets none. */
export function numCtxOfParameters(parameters: string | undefined): number | null {
  const match = /^num_ctx\s+(\d+)\s*$/m.exec(parameters ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * The derived model of `model` with the window min(want.numCtx, trained maximum, memoryCapTokens), created with
 * POST /api/create only when it is missing or has another num_ctx (so a second call creates nothing).
 */
export async function ensureDerivedModel(
  baseUrl: string,
  model: string,
  want: { numCtx: number; memoryCapTokens?: number },
  headers: Record<string, string> = {},
): Promise<DerivedModel> {
  const root = ollamaRoot(baseUrl);
  const base = await showModel(root, model, headers);
  if (typeof base === 'string') throw notPulled(root, model, base);
  const trainedMax = trainedMaximumOf(base);
  const numCtx = Math.floor(Math.min(want.numCtx, trainedMax ?? Infinity, want.memoryCapTokens ?? Infinity));
  if (!(numCtx >= 1)) {
    throw new OllamaModelError(model, `Ollama model "${model}": no usable window (asked for ${want.numCtx} tokens)`);
  }
  const name = derivedModelName(model, numCtx);
  const existing = await showModel(root, name, headers);
  if (typeof existing !== 'string' && numCtxOfParameters(existing.parameters) === numCtx) {
    return { name, numCtx, trainedMax, created: false };
  }
  await createDerived(root, name, model, numCtx, headers);
  return { name, numCtx, trainedMax, created: true };
}

/** The window a model runs with by its own parameters (num_ctx), or null when it sets none. */
export async function readOllamaWindow(
  baseUrl: string,
  model: string,
  headers: Record<string, string> = {},
): Promise<number | null> {
  const root = ollamaRoot(baseUrl);
  const show = await showModel(root, model, headers);
  if (typeof show === 'string') throw notPulled(root, model, show);
  return numCtxOfParameters(show.parameters);
}

/** Whether the server at this base URL (with or without `/v1`) is Ollama: GET /api/version answers a version. */
export async function isOllama(baseUrl: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const response = await fetch(`${ollamaRoot(baseUrl)}/api/version`, {
      headers,
      signal: AbortSignal.timeout(VERSION_TIMEOUT_MS),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { version?: unknown };
    return typeof body.version === 'string';
  } catch {
    return false;
  }
}

/** /api/show of a model, or what Ollama said when it has no such model (404). */
async function showModel(root: string, model: string, headers: Record<string, string>): Promise<ShowAnswer | string> {
  const response = await ask(root, model, '/api/show', { model }, headers, SHOW_TIMEOUT_MS);
  if (response.status === 404) return saidBy(response);
  if (!response.ok) {
    const said = await saidBy(response);
    throw new OllamaModelError(model, `Ollama could not show model "${model}" (HTTP ${response.status}: ${said})`);
  }
  return (await response.json()) as ShowAnswer;
}

async function createDerived(
  root: string,
  name: string,
  from: string,
  numCtx: number,
  headers: Record<string, string>,
): Promise<void> {
  const body = { model: name, from, parameters: { num_ctx: numCtx }, stream: false };
  const response = await ask(root, from, '/api/create', body, headers, CREATE_TIMEOUT_MS);
  const said = response.ok ? null : await saidBy(response);
  if (said === null) {
    const answer = (await response.json().catch(() => ({}))) as { status?: unknown; error?: unknown };
    if (answer.status === 'success') return;
    throw new OllamaModelError(from, `Ollama did not create "${name}" from "${from}": ${JSON.stringify(answer)}`);
  }
  const hint = /pull model manifest|not found|does not exist/i.test(said) ? ` Pull it first: ollama pull ${from}` : '';
  throw new OllamaModelError(
    from,
    `Ollama could not create "${name}" from "${from}" with num_ctx ${numCtx} (HTTP ${response.status}: ${said}).${hint}`,
    response.status,
  );
}

async function ask(
  root: string,
  model: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Response> {
  try {
    return await fetch(`${root}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new OllamaModelError(model, `Ollama at ${root} did not answer ${path} for "${model}" (${reason})`);
  }
}

function notPulled(root: string, model: string, said: string): OllamaModelError {
  return new OllamaModelError(
    model,
    `Ollama at ${root} has no model "${model}" (it said: ${said}). Pull it first: ollama pull ${model}`,
    404,
  );
}

/** Ollama's {"error": "…"} message, or the body's text. */
async function saidBy(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 300) || '(no message)';
}
