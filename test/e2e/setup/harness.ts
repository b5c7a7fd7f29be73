// Helpers for e2e tests: the running stack (from the global setup) and calls into it.
//   const stack = e2eStack();
//   const workflows = await stack.api<{ data: unknown[] }>('/workflows');
//   const response = await stack.webhook('v1/systemone', { method: 'POST', body: '…' });
import { inject } from 'vitest';
import type { E2EStackInfo } from './context';

export type { E2EStackInfo } from './context';

export interface E2EStack extends E2EStackInfo {
  /** Public API (/api/v1/...) with the API key. Throws on a non-2xx answer, naming the call and the body. */
  api<T = unknown>(apiPath: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** A production webhook (the path after /webhook/). A 404 is retried for `retry404Ms` (default 10 s). */
  webhook(webhookPath: string, init?: RequestInit & { retry404Ms?: number }): Promise<Response>;
  /** Logs in as the owner and calls the editor's backend (`/rest/...`, `/types/nodes.json`) with the session cookie. */
  editor<T = unknown>(editorPath: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** n8n's PID now (it changes when a test restarts n8n), and every PID of the stack ever seen (old ones included). */
  currentPids(): Promise<{ n8n: number; all: number[] }>;
  /** Stops n8n, keeps it down `downMs`, starts it again and waits until it is ready. */
  restartN8n(downMs?: number): Promise<void>;
  /** Stops the browser service and starts it again on the same port and key (users' profiles kept). */
  restartBrowser(): Promise<void>;
}

/**
 * fetch, once more when the server closed a kept-alive connection just as it was reused (undici's "other side
 * closed"): a race of the transport under load, not an answer of n8n.
 */
async function fetchOnFreshSocket(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw error;
    return fetch(url, init);
  }
}

export function e2eStack(): E2EStack {
  const info = inject('e2eStack');
  if (!info) {
    throw new Error('no e2e stack: the e2e global setup (test/e2e/setup/global-setup.ts) did not run or failed');
  }
  let cookie: string | undefined;

  const call = async (
    url: string,
    what: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown },
  ) => {
    const response = await fetchOnFreshSocket(url, {
      method: init.method ?? 'GET',
      headers: { ...headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${what}: HTTP ${response.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  };

  return {
    ...info,
    api: (apiPath, init = {}) =>
      call(`${info.n8nUrl}/api/v1${apiPath}`, `/api/v1${apiPath}`, { 'X-N8N-API-KEY': info.apiKey }, init),
    async editor(editorPath, init = {}) {
      if (!cookie) {
        const login = await fetchOnFreshSocket(`${info.n8nUrl}/rest/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ emailOrLdapLoginId: info.owner.email, password: info.owner.password }),
        });
        if (!login.ok) throw new Error(`POST /rest/login: HTTP ${login.status} ${await login.text()}`);
        cookie = login.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .filter((c) => c.startsWith('n8n-auth='))
          .join('; ');
      }
      return call(`${info.n8nUrl}${editorPath}`, editorPath, { cookie }, init);
    },
    async currentPids() {
      const response = await fetch(`${info.controlUrl}/pids`);
      return (await response.json()) as { n8n: number; all: number[] };
    },
    async restartN8n(downMs = 0) {
      const response = await fetch(`${info.controlUrl}/n8n/restart?down_ms=${downMs}`, { method: 'POST' });
      if (!response.ok) throw new Error(`n8n restart: HTTP ${response.status} ${await response.text()}`);
    },
    async restartBrowser() {
      const response = await fetch(`${info.controlUrl}/browser/restart`, { method: 'POST' });
      if (!response.ok) throw new Error(`browser restart: HTTP ${response.status} ${await response.text()}`);
    },
    async webhook(webhookPath, init = {}) {
      const { retry404Ms = 10_000, ...requestInit } = init;
      const deadline = Date.now() + retry404Ms;
      for (;;) {
        const response = await fetch(`${info.webhookUrl}/${webhookPath.replace(/^\/+/, '')}`, requestInit);
        if (response.status !== 404 || Date.now() > deadline) return response;
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}
