// Types of webhook-guard.js (plain CommonJS: n8n loads it as an external hook file).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface WebhookGuardOptions {
  /** Largest body read, in bytes (default: n8n's 16 MiB). */
  maxBytes?: number;
  /** Deepest JSON nesting the project's webhooks accept (default 64, the judge server's). */
  maxDepth?: number;
  /** n8n's webhook endpoint names (default: webhook, webhook-test). */
  endpoints?: string[];
}

export type WebhookGuard = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export const n8n: { ready: Array<(server: { server?: Server }) => Promise<void>> };
export function createWebhookGuard(options?: WebhookGuardOptions): WebhookGuard;
export function installWebhookGuard(httpServer: Server, guard: WebhookGuard): void;
export function guardOptionsFromEnv(env?: Record<string, string | undefined>): Required<WebhookGuardOptions>;
export function jsonNestingDepth(text: string): number;
