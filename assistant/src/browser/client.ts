// The browser service's client (read_page uses it): plain HTTP to the service's configured URL with its key. The
// service is operator configuration on loopback or the internal network, not a user URL, so this does not go through
// the outbound guard; the service guards every page it loads itself.
import {
  BROWSER_KEY_HEADER,
  type BrowserErrorBody,
  type BrowserErrorCode,
  type BrowserHealth,
  type RenderRequest,
  type RenderedPage,
} from './protocol';

export class BrowserServiceError extends Error {
  constructor(
    /** The service's error code, or `unavailable` when it could not be reached or answered nonsense. */
    readonly code: BrowserErrorCode | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'BrowserServiceError';
  }
}

export interface BrowserClientOptions {
  /** e.g. http://127.0.0.1:8790 */
  url: string;
  key: string;
  /** Added to a render's own time limit for the round trip; 5 s by default. */
  marginMs?: number;
}

export interface BrowserClient {
  render(request: RenderRequest): Promise<RenderedPage>;
  health(): Promise<BrowserHealth>;
}

/** How long a render may take when the request does not say; the service's default limit. */
const DEFAULT_RENDER_MS = 30_000;

export function createBrowserClient(options: BrowserClientOptions): BrowserClient {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const margin = options.marginMs ?? 5_000;

  async function call<T>(path: string, init: RequestInit, timeoutMs: number): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(path, base), {
        ...init,
        headers: { ...(init.headers as Record<string, string>), [BROWSER_KEY_HEADER]: options.key },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new BrowserServiceError('unavailable', `the browser service at ${options.url} is not reachable (${cause})`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new BrowserServiceError(
        'unavailable',
        `the browser service answered HTTP ${response.status} without JSON; is ASSISTANT_BROWSER_URL right?`,
      );
    }
    if (!response.ok) {
      const error = (body as Partial<BrowserErrorBody>).error;
      throw new BrowserServiceError(
        error?.code ?? 'unavailable',
        error?.message ?? `the browser service answered HTTP ${response.status}`,
      );
    }
    return body as T;
  }

  return {
    render: (request) =>
      call<RenderedPage>(
        'render',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) },
        (request.timeoutMs ?? DEFAULT_RENDER_MS) + margin,
      ),
    health: () => call<BrowserHealth>('health', { method: 'GET' }, 10_000),
  };
}
