// The JSON error envelope every assistant entry point answers with: {error: {code, message, field?}}.

export interface ErrorEnvelope {
  error: { code: string; message: string; field?: string };
}

export interface HttpResult {
  statusCode: number;
  body: ErrorEnvelope | Record<string, unknown>;
}

export function httpError(statusCode: number, code: string, message: string, field?: string): HttpResult {
  return { statusCode, body: { error: { code, message, ...(field ? { field } : {}) } } };
}
