// One HTTP call of doctor: always under a time limit, and any failure turned into one plain sentence (connection
// refused, a refused key, an unknown model, a timeout, the server's own error message).

/** A call that did not give a usable answer; `kind` is what went wrong, the message says it in plain words. */
export class ProbeFailure extends Error {
  constructor(
    readonly kind: 'unreachable' | 'timeout' | 'unauthorized' | 'model_not_found' | 'too_long' | 'error',
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ProbeFailure';
  }
}

export interface ProbeAnswer<T> {
  body: T;
  /** Wall-clock milliseconds from the request to the whole answer. */
  elapsedMs: number;
}

export interface ProbeRequest {
  url: string;
  /** Who answers, for the messages: "the model gateway", "the judge". */
  who: string;
  method?: 'GET' | 'POST';
  key?: string;
  json?: unknown;
  form?: FormData;
  timeoutMs: number;
  now?: () => number;
}

/** The provider's or gateway's error message from an OpenAI-style or Ollama-style body. */
export function errorMessageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: string | { message?: string; code?: string } };
    if (typeof body.error === 'string') return body.error;
    if (body.error?.message) return body.error.message;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300) || '(no message)';
}

function failureOf(status: number, text: string, who: string): ProbeFailure {
  const message = errorMessageOf(text);
  if (status === 401 || status === 403)
    return new ProbeFailure('unauthorized', `${who} refused the key (HTTP ${status}): ${message}`, status);
  if (/context_length_exceeded|exceeds the context length|window is/i.test(text))
    return new ProbeFailure('too_long', `the prompt does not fit the model's window: ${message}`, status);
  if (status === 404 && /model/i.test(message))
    return new ProbeFailure('model_not_found', `the model is unknown to the provider (HTTP 404): ${message}`, status);
  return new ProbeFailure('error', `${who} answered HTTP ${status}: ${message}`, status);
}

export async function probe<T>(request: ProbeRequest): Promise<ProbeAnswer<T>> {
  const now = request.now ?? (() => performance.now());
  const headers: Record<string, string> = {};
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  const started = now();
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: request.method ?? (request.json !== undefined || request.form ? 'POST' : 'GET'),
      headers,
      body: request.form ?? (request.json === undefined ? undefined : JSON.stringify(request.json)),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new ProbeFailure('timeout', `${request.who} did not answer within ${request.timeoutMs / 1000} s`);
    throw new ProbeFailure(
      'unreachable',
      `${request.who} is not reachable at ${new URL(request.url).origin} (is it running?)`,
    );
  }
  if (!response.ok) throw failureOf(response.status, text, request.who);
  try {
    return { body: JSON.parse(text) as T, elapsedMs: now() - started };
  } catch {
    throw new ProbeFailure('error', `${request.who} answered something that is not JSON`, response.status);
  }
}
