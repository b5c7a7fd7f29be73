// Every error the API answers with is an ApiError: the one place where a status, an error type and the body meet.
// Jev's envelope: {"detail": {"error_type": …, "message": …}} for every error but a 422, which keeps its field list
// {"detail": [{loc, msg, type}, …]}. A call site gives the status, a sentence and (optionally) the error type;
// body() builds the envelope, so new statuses (429 rate limits, 503 overload, …) get it without more code.
import type { ErrorBody, FieldIssue } from './types';

export interface ApiErrorOptions {
  /** Response headers that go with the error, e.g. {"retry-after": "1"} on a 429 or 503. */
  headers?: Record<string, string>;
  /** What went wrong underneath; for the log, never sent to the caller. */
  cause?: unknown;
}

/** The error type of each status when a call site names none. */
const DEFAULT_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
  499: 'client_closed_request',
  500: 'internal_error',
  502: 'backend_error',
  503: 'overloaded',
  504: 'timeout',
};

export function defaultErrorType(status: number): string {
  return DEFAULT_ERROR_TYPES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request_error');
}

export class ApiError extends Error {
  /** Machine-readable, e.g. "authentication_error", "invalid_model", "max_tokens_exceeded". */
  readonly errorType: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    /** A sentence for the caller, or (422 only) the list of broken fields. */
    readonly detail: string | FieldIssue[],
    errorType?: string,
    options: ApiErrorOptions = {},
  ) {
    super(
      typeof detail === 'string' ? detail : detail.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ApiError';
    this.errorType = errorType ?? defaultErrorType(status);
    this.headers = { ...(options.headers ?? {}) };
  }

  /** The response body: Jev's envelope. */
  body(): ErrorBody {
    if (typeof this.detail !== 'string') return { detail: this.detail, error_type: this.errorType };
    return { detail: { error_type: this.errorType, message: this.detail } };
  }
}

/** 422: the body does not match the schema; every entry names its field. */
export function schemaError(errors: FieldIssue[]): ApiError {
  return new ApiError(422, errors, 'invalid_request_error');
}

/** 400: the body is well formed but breaks a limit or rule; a plain sentence. */
export function badRequest(sentence: string, errorType = 'invalid_request_error'): ApiError {
  return new ApiError(400, sentence, errorType);
}
