// Errors in Jev's envelope: {"detail": string | FieldIssue[], "error_type"?: string}.
import type { ErrorBody, FieldIssue } from './types';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | FieldIssue[],
    readonly errorType?: string,
  ) {
    super(typeof detail === 'string' ? detail : detail.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '));
    this.name = 'ApiError';
  }

  body(): ErrorBody {
    return this.errorType === undefined ? { detail: this.detail } : { detail: this.detail, error_type: this.errorType };
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
