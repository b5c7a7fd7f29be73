// n8n's public API (/api/v1) with an API key, over fetch: what the CLIs install through. Inside n8n the nodes do the
// same calls with the "n8n API" credential instead.
import { workflowApiOver, type WorkflowApi } from './workflow-api';

/** A call to n8n's public API that n8n refused or could not answer. */
export class N8nApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'N8nApiError';
  }
}

export function publicWorkflowApi(baseUrlInput: string, apiKey: string, timeoutMs = 30_000): WorkflowApi {
  let base: URL;
  try {
    base = new URL(baseUrlInput.replace(/\/+$/, ''));
  } catch {
    throw new N8nApiError(`n8n API URL "${baseUrlInput}" is not a URL, e.g. http://127.0.0.1:5678/api/v1`, null);
  }
  if (!apiKey) throw new N8nApiError('no n8n API key: create one in n8n (Settings → n8n API)', null);
  const root = base.pathname.endsWith('/api/v1') ? base.href : `${base.href.replace(/\/+$/, '')}/api/v1`;

  async function call(method: string, path: string, body?: unknown, allow404 = false): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers: { 'X-N8N-API-KEY': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new N8nApiError(`${method} ${root}${path}: n8n did not answer (${(error as Error).message})`, null);
    }
    if (allow404 && response.status === 404) return null;
    const text = await response.text();
    if (!response.ok) {
      const detail = text.slice(0, 300).replace(/\s+/g, ' ');
      const hint = response.status === 401 ? ' (the API key is wrong or revoked)' : '';
      throw new N8nApiError(
        `${method} /api/v1${path}: n8n answered ${response.status}${hint}: ${detail}`,
        response.status,
      );
    }
    return text === '' ? null : (JSON.parse(text) as unknown);
  }

  return workflowApiOver(call);
}
