// The browser service (one Chromium behind a keyed HTTP API, every request through the outbound guard) and its
// client. Not exported from assistant-core's root: only the client is (through web/), so the n8n nodes do not bundle
// Playwright. The service runs as its own process: node assistant/dist/browser/main.js.
export * from './protocol';
export * from './client';
export * from './config';
export {
  startBrowserServer,
  ServiceError,
  type BrowserServer,
  type BrowserServerOptions,
  type RouteHandler,
} from './server';
export { ChromiumHost } from './chromium';
export { openGuardedContext, type GuardedContext, type LoadRecord } from './guarded-context';
export { renderPage, RenderError, type RenderLimits } from './render';
export { Limiter, BusyError } from './limiter';
