// The web tools: web_search and read_page (see docs/WEB.md), and the browser service's client they render with.
export * from './errors';
export * from './settings';
export * from './search-types';
export * from './search';
export * from './read-page';
export * from './tools';
export { parseDuckDuckGoHtml } from './duckduckgo';
export { parseSearxngJson } from './searxng';
export type { PageLink } from './extract';
export { BrowserServiceError, createBrowserClient, type BrowserClient } from '../browser/client';
export type { RenderedPage, BrowserHealth } from '../browser/protocol';
export { markUntrusted, untrustedId } from '../safety/untrusted';
