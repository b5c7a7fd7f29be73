// The browser service's client (read_page renders with it; interactive tools use its sessions): plain HTTP to the
// service's configured URL with its key. The service is operator configuration on loopback or the internal network,
// not a user URL, so this does not go through the outbound guard; the service guards every page it loads itself.
import {
  BROWSER_KEY_HEADER,
  type BrowserErrorBody,
  type BrowserErrorCode,
  type BrowserHealth,
  type RenderRequest,
  type RenderedPage,
  type SessionClickRequest,
  type SessionClickTarget,
  type SessionClosed,
  type SessionFillRequest,
  type SessionOpenRequest,
  type SessionPage,
  type SessionRefRequest,
  type SessionScreenshot,
  type SessionSelectRequest,
  type SessionStepRequest,
  type SessionTask,
  type SessionTaskList,
} from './protocol';

export class BrowserServiceError extends Error {
  constructor(
    /** The service's error code, or `unavailable` when it could not be reached or answered nonsense. */
    readonly code: BrowserErrorCode | 'unavailable',
    message: string,
    /** The request's field the service named (a session's `ref`, `option`, `sites`, …). */
    readonly field?: string,
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
  /** The service's time limit of a session step (its ASSISTANT_BROWSER_RENDER_TIMEOUT_MS); 30 s by default. */
  stepTimeoutMs?: number;
}

export interface BrowserClient {
  render(request: RenderRequest): Promise<RenderedPage>;
  health(): Promise<BrowserHealth>;
  /** The user's interactive task (protocol.ts): one at a time per user, its cookies kept by the service. */
  session: BrowserSessionClient;
}

/**
 * Every step takes an optional signal: the caller's run was stopped or reached its deadline. The request is then
 * abandoned and the signal's reason thrown; the service still finishes the step it started (closing the task, which
 * waits behind it, is the caller's part).
 */
export interface BrowserSessionClient {
  /** Starts the user's task if none is open, else navigates within it. */
  open(request: SessionOpenRequest, signal?: AbortSignal): Promise<SessionPage>;
  snapshot(request: SessionStepRequest, signal?: AbortSignal): Promise<SessionPage>;
  fill(request: SessionFillRequest, signal?: AbortSignal): Promise<SessionPage>;
  /** What a click on the element would send (a form), without clicking. */
  clickTarget(request: SessionRefRequest, signal?: AbortSignal): Promise<SessionClickTarget>;
  click(request: SessionClickRequest, signal?: AbortSignal): Promise<SessionPage>;
  select(request: SessionSelectRequest, signal?: AbortSignal): Promise<SessionPage>;
  screenshot(request: SessionStepRequest, signal?: AbortSignal): Promise<SessionScreenshot>;
  /** The task waits for its user: its clock stops until the next step. */
  wait(request: SessionStepRequest, signal?: AbortSignal): Promise<SessionTask>;
  close(request: SessionStepRequest, signal?: AbortSignal): Promise<SessionClosed>;
  /** The tasks open now, by user. */
  tasks(): Promise<SessionTaskList>;
}

/** How long a render may take when the request does not say; the service's default limit. */
const DEFAULT_RENDER_MS = 30_000;
/** A session step may close its task when it ends (the profile saved, the page closed): time for that. */
const CLOSING_MS = 10_000;

export function createBrowserClient(options: BrowserClientOptions): BrowserClient {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const margin = options.marginMs ?? 5_000;

  async function call<T>(path: string, init: RequestInit, timeoutMs: number, stop?: AbortSignal): Promise<T> {
    let response: Response;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      response = await fetch(new URL(path, base), {
        ...init,
        headers: { ...(init.headers as Record<string, string>), [BROWSER_KEY_HEADER]: options.key },
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
      });
    } catch (error) {
      if (stop?.aborted) throw stop.reason;
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
        error?.field,
      );
    }
    return body as T;
  }

  const post = <T>(path: string, body: unknown, timeoutMs: number, stop?: AbortSignal) =>
    call<T>(
      path,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      timeoutMs,
      stop,
    );
  const stepMs = (options.stepTimeoutMs ?? DEFAULT_RENDER_MS) + margin + CLOSING_MS;
  const step =
    <Request, Answer>(path: string) =>
    (request: Request, stop?: AbortSignal) =>
      post<Answer>(`session/${path}`, request, stepMs, stop);

  return {
    render: (request) => post<RenderedPage>('render', request, (request.timeoutMs ?? DEFAULT_RENDER_MS) + margin),
    health: () => call<BrowserHealth>('health', { method: 'GET' }, 10_000),
    session: {
      open: step<SessionOpenRequest, SessionPage>('open'),
      snapshot: step<SessionStepRequest, SessionPage>('snapshot'),
      fill: step<SessionFillRequest, SessionPage>('fill'),
      clickTarget: step<SessionRefRequest, SessionClickTarget>('click-target'),
      click: step<SessionClickRequest, SessionPage>('click'),
      select: step<SessionSelectRequest, SessionPage>('select'),
      screenshot: step<SessionStepRequest, SessionScreenshot>('screenshot'),
      wait: step<SessionStepRequest, SessionTask>('wait'),
      close: step<SessionStepRequest, SessionClosed>('close'),
      tasks: () => call<SessionTaskList>('session/tasks', { method: 'GET' }, 10_000),
    },
  };
}
