// The installer's real calls to the models it configures, straight to the provider (the product's gateway is not
// running yet): the judge's own probe (one tiny judge question, systemone-judge's OpenAIBackend, which also tells the
// scoring method), one embedding of two words, and one transcription of half a second of silence. Errors are
// sentences without the key.
import type { AiProvider } from 'assistant-core';
import { OpenAIBackend } from 'systemone-judge';
import { silentWav } from '../doctor/transcription';
import type { CallCheck } from './questions';

export interface ModelCallOptions {
  /** Replaces every provider's base URL (a proxy, or a loopback fake in tests). */
  providerBaseUrl?: string;
  /** The limit of one call (a local runner may load the model first). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

function endpoint(provider: AiProvider, options: ModelCallOptions, route: string): URL {
  const base = options.providerBaseUrl ?? provider.baseUrl;
  return new URL(route, base.endsWith('/') ? base : `${base}/`);
}

/** The provider's answer as a sentence: its error message when it gives one, never the key. */
async function failure(response: Response, who: string): Promise<string> {
  if (response.status === 401 || response.status === 403) return `${who} refused the key (HTTP ${response.status})`;
  const body = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
  const said = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 200)}` : '';
  return `${who} answered HTTP ${response.status}${said}`;
}

async function post(url: URL, init: RequestInit, who: string, timeoutMs: number): Promise<Response | string> {
  try {
    return await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return `${who} could not be reached at ${url.origin} (${cause})`;
  }
}

export async function judgeCall(
  provider: AiProvider,
  key: string,
  model: string,
  options: ModelCallOptions = {},
): Promise<CallCheck> {
  const backend = new OpenAIBackend({
    baseUrl: options.providerBaseUrl ?? provider.baseUrl,
    apiKey: key,
    upstreamModel: model,
    id: `judge-openai-${model}`,
    maxRetries: 0,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  try {
    return { ok: true, detail: await backend.probe() };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export async function embeddingsCall(
  provider: AiProvider,
  key: string,
  model: string,
  options: ModelCallOptions = {},
): Promise<CallCheck> {
  const who = `${provider.name}'s embeddings`;
  const response = await post(
    endpoint(provider, options, 'embeddings'),
    {
      headers: { 'content-type': 'application/json', ...provider.keyCheck.headers(key) },
      body: JSON.stringify({ model, input: 'setup check' }),
    },
    who,
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (typeof response === 'string') return { ok: false, message: response };
  if (!response.ok) return { ok: false, message: await failure(response, who) };
  const body = (await response.json().catch(() => null)) as { data?: Array<{ embedding?: unknown }> } | null;
  const vector = body?.data?.[0]?.embedding;
  if (!Array.isArray(vector) || vector.length === 0) return { ok: false, message: `${who}: no embedding came back` };
  return { ok: true, detail: `${vector.length} dimensions` };
}

export async function transcriptionCall(
  provider: AiProvider,
  key: string,
  model: string,
  options: ModelCallOptions = {},
): Promise<CallCheck> {
  const who = `${provider.name}'s speech to text`;
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(silentWav())], { type: 'audio/wav' }), 'setup-check.wav');
  form.set('model', model);
  form.set('response_format', 'json');
  const response = await post(
    endpoint(provider, options, 'audio/transcriptions'),
    { headers: provider.keyCheck.headers(key), body: form },
    who,
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (typeof response === 'string') return { ok: false, message: response };
  if (!response.ok) return { ok: false, message: await failure(response, who) };
  const body = (await response.json().catch(() => null)) as { text?: unknown } | null;
  if (typeof body?.text !== 'string') return { ok: false, message: `${who}: the answer carries no text` };
  return { ok: true, detail: 'transcribed' };
}
