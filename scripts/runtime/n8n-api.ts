// Clients of a running n8n: its public API with the API key, and its production webhooks.
import { sleep } from './process';
import type { Stack } from './stack-types';

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Calls n8n's public API (/api/v1/...) with the API key; throws on a non-2xx answer, naming it. */
export function publicApi(n8nUrl: string, apiKey: string): Stack['api'] {
  return async <T>(apiPath: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${n8nUrl}/api/v1${apiPath}`, {
      method: init.method ?? 'GET',
      headers: { 'X-N8N-API-KEY': apiKey, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return (await readJson(response, `${init.method ?? 'GET'} /api/v1${apiPath}`)) as T;
  };
}

/** Calls a production webhook (path after /webhook/), retrying a 404 just after activation. */
export function webhookCaller(n8nUrl: string): Stack['webhook'] {
  return async (webhookPath: string, init: RequestInit & { retry404Ms?: number } = {}) => {
    const deadline = Date.now() + (init.retry404Ms ?? 10_000);
    for (;;) {
      const response = await fetch(`${n8nUrl}/webhook/${webhookPath.replace(/^\/+/, '')}`, init);
      if (response.status !== 404 || Date.now() > deadline) return response;
      await response.arrayBuffer();
      await sleep(250);
    }
  };
}
