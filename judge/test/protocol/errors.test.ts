// Jev's error envelope, built in one place (ApiError.body): {"detail": {"error_type", "message"}} for every error
// but a 422, which keeps its field list. Backend failures reach callers only as fixed public sentences.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../src/engine/backend';
import { ApiError, badRequest, schemaError } from '../../src/protocol/errors';

describe('ApiError', () => {
  it('puts the error type and the sentence inside `detail`', () => {
    expect(new ApiError(401, 'Invalid API key.', 'authentication_error').body()).toEqual({
      detail: { error_type: 'authentication_error', message: 'Invalid API key.' },
    });
    expect(badRequest('Too long.', 'max_tokens_exceeded').body()).toEqual({
      detail: { error_type: 'max_tokens_exceeded', message: 'Too long.' },
    });
  });

  it('keeps the 422 field list as it is', () => {
    const fields = [{ loc: ['body', 'questions', 'q', 'type'], msg: 'Field required.', type: 'missing' }];
    expect(schemaError(fields).body()).toEqual({ detail: fields, error_type: 'invalid_request_error' });
  });

  it('names an error type for every status when the call site gives none, and carries headers', () => {
    expect(new ApiError(429, 'Slow down.').errorType).toBe('rate_limit_exceeded');
    expect(new ApiError(403, 'Not authenticated.').errorType).toBe('permission_error');
    expect(new ApiError(503, 'Busy.').errorType).toBe('overloaded');
    expect(new ApiError(418, 'Teapot.').errorType).toBe('invalid_request_error');
    const limited = new ApiError(429, 'Slow down.', 'rate_limit_exceeded', { headers: { 'retry-after': '3' } });
    expect(limited.headers).toEqual({ 'retry-after': '3' });
    expect(limited.body()).toEqual({ detail: { error_type: 'rate_limit_exceeded', message: 'Slow down.' } });
  });
});

describe('BackendError.toApiError', () => {
  it('tells the caller a fixed sentence per code, never the upstream URL or text', () => {
    const error = new BackendError(
      'The OpenAI-compatible server at http://10.0.0.5:8000/v1 failed: boom',
      502,
      'upstream_error',
    );
    const answer = error.toApiError();
    expect(answer.status).toBe(502);
    expect(answer.body()).toEqual({
      detail: {
        error_type: 'upstream_error',
        message: 'The upstream model server failed. The server log has the details under this X-Request-Id.',
      },
    });
    expect(JSON.stringify(answer.body())).not.toMatch(/10\.0\.0\.5|boom/);
    expect(answer.cause).toBe(error);
  });

  it('passes the upstream’s wait on as retry-after (whole seconds, at least 1)', () => {
    expect(new BackendError('x', 503, 'upstream_rate_limited', { retryAfterMs: 1500 }).toApiError().headers).toEqual({
      'retry-after': '2',
    });
    expect(new BackendError('x', 503, 'upstream_rate_limited', { retryAfterMs: 0 }).toApiError().headers).toEqual({
      'retry-after': '1',
    });
    expect(new BackendError('x', 504, 'upstream_timeout').toApiError().headers).toEqual({});
  });
});
