// n8n's own public API, through n8n's built-in "n8n API" credential (API key + base URL): listing saved executions
// with their data, and deleting one (a hard delete).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { SavedExecution } from 'assistant-core';

export const N8N_API_CREDENTIAL = 'n8nApi';

async function call(context: IExecuteFunctions, method: 'GET' | 'DELETE', path: string, qs?: IDataObject) {
  const { baseUrl } = await context.getCredentials<{ baseUrl: string }>(N8N_API_CREDENTIAL);
  return (await context.helpers.httpRequestWithAuthentication.call(context, N8N_API_CREDENTIAL, {
    method,
    url: `${String(baseUrl).replace(/\/+$/, '')}${path}`,
    qs,
    json: true,
  })) as IDataObject;
}

/** Every saved execution with its data, page by page. */
export async function listExecutions(context: IExecuteFunctions): Promise<SavedExecution[]> {
  const all: SavedExecution[] = [];
  let cursor: string | undefined;
  do {
    const query: IDataObject = { includeData: true, limit: 100, ...(cursor ? { cursor } : {}) };
    const page = await call(context, 'GET', '/executions', query);
    all.push(...((page.data as SavedExecution[] | undefined) ?? []));
    cursor = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
  } while (cursor);
  return all;
}

export async function deleteExecution(context: IExecuteFunctions, id: string): Promise<void> {
  await call(context, 'DELETE', `/executions/${encodeURIComponent(id)}`);
}
