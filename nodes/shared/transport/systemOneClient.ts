// One HTTP call to a System One server (POST /v1/systemone or GET /v1/models) through the "System One API" credential.
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

export const SYSTEM_ONE_CREDENTIAL = 'systemOneApi';

export interface SystemOneReply {
  statusCode: number;
  body: unknown;
  /** The response headers, names in lower case. */
  headers: Record<string, unknown>;
}

export interface SystemOneCredential {
  baseUrl: string;
  apiKey: string;
}

/** Reads the credential; `read` may be a cached read (nodes/Judge/v1/transport/credentialCache.ts). */
export async function readSystemOneCredential(
  context: IExecuteFunctions,
  read: (type: string) => Promise<{ baseUrl?: string; apiKey?: string }> = (type) => context.getCredentials(type),
): Promise<SystemOneCredential> {
  const credential = await read(SYSTEM_ONE_CREDENTIAL);
  return { baseUrl: String(credential.baseUrl ?? '').replace(/\/+$/, ''), apiKey: String(credential.apiKey ?? '') };
}

/** The two System One endpoints a server answers. */
export type SystemOneEndpoint = 'systemone' | 'models';

/**
 * Calls a System One endpoint — POST /v1/systemone with `body`, or GET /v1/models — and returns the status,
 * parsed body and headers, whatever the status. Network failures (refused, timeout) are thrown. `requestId` is sent
 * as X-Request-Id (the judge server answers with it).
 */
export async function callSystemOne(
  context: IExecuteFunctions,
  credential: SystemOneCredential,
  endpoint: SystemOneEndpoint,
  body: unknown,
  timeoutMs: number,
  requestId?: string,
): Promise<SystemOneReply> {
  const headers: Record<string, string> = { Authorization: `Bearer ${credential.apiKey}` };
  if (requestId !== undefined) headers['X-Request-Id'] = requestId;
  const request: IHttpRequestOptions =
    endpoint === 'models'
      ? { method: 'GET', url: `${credential.baseUrl}/v1/models`, headers }
      : {
          method: 'POST',
          url: `${credential.baseUrl}/v1/systemone`,
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: body as object,
        };
  const response = (await context.helpers.httpRequest({
    ...request,
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
    timeout: timeoutMs,
    // A stopped run stops its call (n8n does this itself only for requests with a credential type).
    abortSignal: context.getExecutionCancelSignal?.(),
  })) as { statusCode: number; body: unknown; headers?: Record<string, unknown> };
  return { statusCode: response.statusCode, body: response.body, headers: response.headers ?? {} };
}

/** POST /v1/systemone. */
export const postSystemOne = (
  context: IExecuteFunctions,
  credential: SystemOneCredential,
  body: unknown,
  timeoutMs: number,
): Promise<SystemOneReply> => callSystemOne(context, credential, 'systemone', body, timeoutMs);
