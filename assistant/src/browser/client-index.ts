// What n8n's nodes use of the browser service: its client, its protocol, the site logins and the page as text. No
// Playwright here (the service runs in its own process): `assistant-core/browser`.
export * from './protocol';
export * from './client';
export * from './logins';
export * from './page-text';
export * from './code-handoff';
export { markUntrusted } from '../safety/untrusted';
