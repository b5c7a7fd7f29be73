// The browser service's HTTP interface, shared by the server and its client (which must not load Playwright).
//
//   GET  /health   → BrowserHealth
//   POST /render   {url, timeoutMs?} → RenderedPage
//
// Every request carries the key in the X-API-Key header: none → 401, a wrong one → 403. Errors are
// `{"error": {"code", "message", "field"?}}` with the codes below.

export const BROWSER_KEY_HEADER = 'x-api-key';

export interface RenderRequest {
  url: string;
  /** 1000 or more; capped at the service's own limit (ASSISTANT_BROWSER_RENDER_TIMEOUT_MS), also the default. */
  timeoutMs?: number;
}

export interface RenderedPage {
  /** The URL asked for. */
  url: string;
  /** Where the page ended up after redirects. */
  finalUrl: string;
  /** The HTTP status of the final document. */
  status: number;
  contentType: string;
  title: string;
  /** The DOM after scripts ran, serialised. */
  html: string;
  redirects: number;
  /** Sub-resources the guard refused (not loaded), with the first few reasons. */
  refused: { count: number; examples: string[] };
}

export interface BrowserHealth {
  status: 'ok';
  /** Chromium's version, or null while it is not running (it is started again on the next request). */
  chromium: string | null;
  /** How many times Chromium was launched since the service started (1 unless it crashed). */
  launches: number;
  active: number;
  queued: number;
  renders: number;
  /**
   * Connections Chromium tried outside the guarded route, all closed unanswered: its own background traffic
   * (component updates, Google accounts), or a request routing missed. `targets`: their host:port, each once.
   */
  unrouted: { connections: number; targets: string[] };
}

export type BrowserErrorCode =
  | 'unauthorized' // no key
  | 'forbidden' // a wrong key
  | 'not_found'
  | 'invalid_request' // bad JSON or a bad field (the field is named)
  | 'refused' // the outbound guard refused the page (or a redirect of it)
  | 'not_html' // the page is not HTML (a PDF, an image, …): fetch it instead
  | 'too_large'
  | 'timeout'
  | 'busy' // too many renders running and queued
  | 'failed'; // the page could not be loaded (connection refused, a browser error, …)

export interface BrowserErrorBody {
  error: { code: BrowserErrorCode; message: string; field?: string };
}

/** The HTTP status each error code is answered with. */
export const BROWSER_ERROR_STATUS: Record<BrowserErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  invalid_request: 400,
  refused: 422,
  not_html: 415,
  too_large: 413,
  timeout: 504,
  busy: 503,
  failed: 502,
};
