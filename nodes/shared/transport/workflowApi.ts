// n8n's own public API through n8n's built-in "n8n API" credential (API key + base URL): what installing experts and
// building tools need (read, create, tag, publish, unpublish and delete workflows; find a credential by name).
import type { IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { workflowApiOver, type WorkflowApi } from 'assistant-core';

export const N8N_API_CREDENTIAL = 'n8nApi';

function statusOf(error: unknown): number | undefined {
  const candidate = error as {
    httpCode?: string | number;
    cause?: { status?: number };
    response?: { status?: number };
  };
  const code = Number(candidate.httpCode ?? candidate.response?.status ?? candidate.cause?.status);
  return Number.isFinite(code) ? code : undefined;
}

export function workflowApi(context: IExecuteFunctions): WorkflowApi {
  async function call(method: IHttpRequestMethods, path: string, body?: unknown, allow404 = false): Promise<unknown> {
    let baseUrl: string;
    try {
      ({ baseUrl } = await context.getCredentials<{ baseUrl: string }>(N8N_API_CREDENTIAL));
    } catch {
      throw new Error('no "n8n API" credential is set on this node: it works through n8n\'s public API');
    }
    try {
      return await context.helpers.httpRequestWithAuthentication.call(context, N8N_API_CREDENTIAL, {
        method,
        url: `${String(baseUrl).replace(/\/+$/, '')}${path}`,
        body: body as object | undefined,
        json: true,
      });
    } catch (error) {
      const status = statusOf(error);
      if (allow404 && status === 404) return null;
      const hint = status === 401 ? ' (the API key of the "n8n API" credential is wrong or revoked)' : '';
      throw Object.assign(
        new Error(`${method} /api/v1${path}: n8n answered ${status ?? 'nothing'}${hint}: ${(error as Error).message}`),
        { status },
      );
    }
  }
  return workflowApiOver(call);
}
