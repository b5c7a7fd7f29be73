// System One error bodies ({detail: {error_type, message}} or a 422's {detail: [{loc, msg, type}]}), summarised for a
// node error or kept for a webhook reply.
import type { IDataObject, JsonObject } from 'n8n-workflow';

/** A one-line summary of a System One error body, naming the fields of a 422. */
export function describeErrorBody(body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    const message = (detail as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
    if (Array.isArray(detail)) {
      return detail
        .map(
          (entry: { loc?: unknown[]; msg?: unknown }) =>
            `${Array.isArray(entry?.loc) ? entry.loc.join('.') : '?'}: ${String(entry?.msg ?? '')}`,
        )
        .join('; ');
    }
  }
  return typeof body === 'string' ? body.slice(0, 500) : (JSON.stringify(body)?.slice(0, 500) ?? '');
}

/**
 * Keeps the judge's {detail…} envelope; anything else (e.g. a proxy's HTML page) becomes one in the server's shape,
 * {detail: {error_type, message}}, with a fixed sentence: upstream text never reaches callers, as in the server.
 */
export function errorEnvelope(body: unknown, statusCode: number): JsonObject {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'detail' in body) return body as JsonObject;
  return {
    detail: {
      error_type: 'backend_error',
      message: `The judge answered HTTP ${statusCode} without a System One error body.`,
    },
  };
}

/**
 * What a failed item carries besides its error when the server answered non-2xx: the HTTP status, and the body's
 * machine-readable error type (detail.error_type, e.g. "budget_exceeded") when it has one, for workflows to decide by.
 */
export function refusalFields(statusCode: number, body: unknown): IDataObject {
  const fields: IDataObject = { httpCode: statusCode };
  const detail = body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  const errorType = detail && typeof detail === 'object' ? (detail as { error_type?: unknown }).error_type : undefined;
  if (typeof errorType === 'string' && errorType !== '') fields.errorType = errorType;
  return fields;
}
