// The browser service (one Chromium behind a keyed HTTP API, every request through the outbound guard) and its
// client. Not exported from assistant-core's root: only the client is (through web/), so the n8n nodes do not bundle
// Playwright. The service runs as its own process: node assistant/dist/browser/main.js.
export * from './protocol';
export * from './client';
export * from './config';
export { startBrowserServer, type BrowserServer, type BrowserServerOptions, type RouteHandler } from './server';
export { ServiceError } from './service-error';
export { ChromiumHost } from './chromium';
export { openGuardedContext, type GuardedContext, type LoadRecord } from './guarded-context';
export {
  renderPage,
  loadPage,
  navigate,
  settle,
  RenderError,
  type RenderLimits,
  type LoadLimits,
  type Loaded,
} from './render';
export { Limiter, BusyError } from './limiter';
export { SessionManager, type SessionManagerOptions, type FillInput } from './sessions';
export { ProfileStore, ProfileUnreadableError, USER_ID, type StorageState } from './profiles';
export { takeSnapshot, redactSecrets, REF_ATTRIBUTE, SECRET_ATTRIBUTE, type PageSnapshot } from './snapshot';
export { parseSetCookies, keepRedirectCookies, type RedirectCookies } from './set-cookie';
