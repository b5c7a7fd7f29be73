// Speech to text through any OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI, Groq, a local
// whisper server, …): the audio as a multipart upload, the text back. Errors say what went wrong in a sentence,
// never with the key.
import { withCaller } from '../gateway/caller';

export interface TranscriptionSettings {
  /** e.g. https://api.openai.com/v1 */
  baseUrl: string;
  apiKey: string;
  /** e.g. whisper-1, gpt-4o-mini-transcribe */
  model: string;
}

export class TranscriptionError extends Error {
  constructor(
    readonly reason: 'refused' | 'unreachable' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'TranscriptionError';
  }
}

export interface AudioFile {
  bytes: Buffer;
  fileName: string;
  mimeType: string;
}

/** The settings when they are complete, else undefined (voice is then not set up). */
export function transcriptionSettings(input: Partial<Record<keyof TranscriptionSettings, unknown>>) {
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const settings = { baseUrl: text(input.baseUrl), apiKey: text(input.apiKey), model: text(input.model) };
  return settings.baseUrl && settings.model ? (settings as TranscriptionSettings) : undefined;
}

export async function transcribeAudio(
  settings: TranscriptionSettings,
  audio: AudioFile,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  const base = settings.baseUrl.endsWith('/') ? settings.baseUrl : `${settings.baseUrl}/`;
  const url = new URL('audio/transcriptions', base);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(audio.bytes)], { type: audio.mimeType }), audio.fileName);
  // The gateway reads who calls from the model id (docs/MODELS.md); it sends the bare id on.
  form.append('model', withCaller(settings.model, { job: 'transcription' }));
  form.append('response_format', 'json');
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      body: form,
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new TranscriptionError('unreachable', `the transcription service at ${url.origin} did not answer (${cause})`);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new TranscriptionError('refused', `the transcription service refused the key (HTTP ${response.status})`);
  }
  const body = (await response.json().catch(() => null)) as { text?: unknown; error?: { message?: unknown } } | null;
  if (!response.ok || typeof body?.text !== 'string') {
    const detail = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 200)}` : '';
    throw new TranscriptionError('failed', `the transcription service answered HTTP ${response.status}${detail}`);
  }
  return body.text.trim();
}
