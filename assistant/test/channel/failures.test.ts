// Failure mapping: timeouts to 504, other failures to 502, with JSON bodies.
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/channel';

describe('failures', () => {
  it('maps timeouts to 504 and other failures to 502, with JSON bodies', () => {
    expect(describeFailure('Request timed out.')).toMatchObject({
      statusCode: 504,
      body: { error: { code: 'upstream_timeout' } },
    });
    expect(describeFailure('500 The server had an error')).toMatchObject({
      statusCode: 502,
      body: { error: { code: 'upstream_failed' } },
    });
    expect(describeFailure(undefined).statusCode).toBe(502);
  });
});
