// The browser service's client for this n8n process (ASSISTANT_BROWSER_URL and ASSISTANT_BROWSER_KEY), kept while
// those variables stay the same. Its errors become field errors where the service names what is wrong.
import { AssistantInputError } from 'assistant-core';
import { BrowserServiceError, createBrowserClient, type BrowserClient } from 'assistant-core/browser';

let cached: { fingerprint: string; client: BrowserClient } | undefined;

export function browserClient(env: NodeJS.ProcessEnv = process.env): BrowserClient {
  const url = env.ASSISTANT_BROWSER_URL?.trim() ?? '';
  const key = env.ASSISTANT_BROWSER_KEY?.trim() ?? '';
  if (!url) {
    throw new AssistantInputError(
      'ASSISTANT_BROWSER_URL',
      'is not set: the browser service is not running (it needs Chromium; see docs/WEB.md)',
    );
  }
  if (!key) throw new AssistantInputError('ASSISTANT_BROWSER_KEY', 'is not set: the browser service needs its key');
  const fingerprint = `${url}\n${key}`;
  if (cached?.fingerprint !== fingerprint) cached = { fingerprint, client: createBrowserClient({ url, key }) };
  return cached.client;
}

/** Which input a service error is about when the service names none. */
const FIELD_OF: Partial<Record<BrowserServiceError['code'], string>> = {
  unknown_ref: 'ref',
  refused: 'url',
};

/** Runs a call to the service; its errors keep their message and name the input to blame. */
export async function browserCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const field = error instanceof BrowserServiceError ? (error.field ?? FIELD_OF[error.code]) : undefined;
    if (field) throw new AssistantInputError(field, (error as Error).message);
    throw error;
  }
}
