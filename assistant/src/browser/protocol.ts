// The browser service's HTTP interface, shared by the server and its client (which must not load Playwright).
//
//   GET  /health   → BrowserHealth
//   POST /render   {url, timeoutMs?} → RenderedPage
//   POST /session/… the per-user sessions, below
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
  /** Users' session tasks open now. */
  tasks: number;
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
  | 'busy' // too many renders running and queued (or too many users' tasks open)
  | 'no_session' // a step without an open task: browser_open first
  | 'unknown_ref' // no element with that ref on the page now (the field is `ref`)
  | 'task_limit' // the task used up its time or pages; it was closed (its cookies kept)
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
  no_session: 409,
  unknown_ref: 400,
  task_limit: 429,
  failed: 502,
};

// ---------------------------------------------------------------------------------------------------------------
// Per-user sessions (issue 13): one task per user at a time, its cookies and local storage kept on disk per user.
//
//   POST /session/open       {user, url}                              → SessionPage
//   POST /session/snapshot   {user}                                   → SessionPage
//   POST /session/fill       {user, ref, value, secret?, sites?}      → SessionPage
//   POST /session/click-target {user, ref}                            → SessionClickTarget (what a click would send)
//   POST /session/click      {user, ref, expectForm?}                 → SessionPage
//   POST /session/select     {user, ref, option}                      → SessionPage
//   POST /session/screenshot {user}                                   → SessionScreenshot
//   POST /session/wait       {user}   the task waits for its user: its clock stops until the next step → SessionTask
//   POST /session/close      {user}                                   → {closed: boolean}
//   GET  /session/tasks                                               → SessionTaskList (the tasks open now)
//
// `user`: the assistant's user id (a UUID); it names the profile. `open` starts the user's task when none is open,
// else navigates within it. Every other step needs an open task (`no_session`).

export interface SessionStepRequest {
  user: string;
}

export interface SessionOpenRequest extends SessionStepRequest {
  url: string;
}

export interface SessionFillRequest extends SessionStepRequest {
  ref: number;
  value: string;
  /**
   * A secret (a site password, a one-time code): never logged, never echoed; the element's value stays hidden in
   * later snapshots of this page.
   */
  secret?: boolean;
  /** With `secret`: the origins (scheme://host[:port]) the value may be typed into; another page's origin is refused. */
  sites?: string[];
}

export interface SessionRefRequest extends SessionStepRequest {
  ref: number;
}

export interface SessionClickRequest extends SessionRefRequest {
  /**
   * The form the caller approved (formSignature: "POST https://…"), or "" for none: the click is refused, nothing
   * clicked, when the element sends another form now. Omitted: not checked.
   */
  expectForm?: string;
}

/** A form a click would send: its submit button's form. */
export interface ClickedForm {
  /** GET, POST or DIALOG (a dialog form only closes its dialog). */
  method: string;
  /** Where it is sent: the button's formaction, else the form's action, as an absolute URL. */
  action: string;
  /** The labels (else the names) of its fields that hold a value, hidden fields left out. */
  fields: string[];
  /**
   * A sign-in: one of its fields holds a secret the assistant typed (a stored login or the user's one-time code),
   * and it is sent to the page's own origin.
   */
  signIn: boolean;
}

export interface SessionClickTarget {
  ref: number;
  /** The form the click would send, or null (a link, a toggle, a button outside any form or not a submit). */
  form: ClickedForm | null;
}

/** The form's identity as an approval names it: method and action ("" for no form). */
export const formSignature = (form: ClickedForm | null): string => (form ? `${form.method} ${form.action}` : '');

export interface SessionSelectRequest extends SessionRefRequest {
  /** The option's visible label or its value. */
  option: string;
}

export interface SessionElement {
  /** The number to name it by in fill/click/select; valid until the page changes. */
  ref: number;
  /** link, button, textbox, password, checkbox, radio, combobox (a select), textarea, … */
  role: string;
  /** Its accessible name: label, aria-label, text, placeholder, title or name attribute. */
  name: string;
  /** A field's current value; never a password field's, nor a field filled with a secret ("[hidden]" then). */
  value?: string;
  /** A select's options (labels), at most 50. */
  options?: string[];
  checked?: boolean;
  disabled?: boolean;
}

export interface SessionTask {
  /** Pages loaded in this task (navigations, clicks that load a page included). */
  pages: number;
  maxPages: number;
  /** Time the task has spent working, waiting for its user excluded. */
  activeMs: number;
  maxActiveMs: number;
  /** How many one-time codes were typed in this task (a site that keeps asking is refused after a limit). */
  codesTyped: number;
}

export interface SessionPage {
  url: string;
  title: string;
  /** The page's visible text, cut at a limit (`truncated`). */
  text: string;
  truncated: boolean;
  elements: SessionElement[];
  /**
   * The page asks for a one-time code: an empty field with autocomplete="one-time-code", or one whose label, name,
   * id or placeholder says code, OTP or verification (a postal or promo code is not one).
   */
  codeField: { ref: number; name: string } | null;
  task: SessionTask;
  refused: { count: number; examples: string[] };
}

export interface SessionScreenshot {
  page: SessionPage;
  /** PNG, base64; the visible viewport. */
  png: string;
}

export interface SessionClosed {
  closed: boolean;
}

export interface SessionTaskList {
  tasks: Array<SessionTask & { user: string; waiting: boolean }>;
}
