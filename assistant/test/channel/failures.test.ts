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

describe('failures by stage', () => {
  it('input: 413 for a message over the limit, else 400, naming the field', () => {
    const long = describeFailure('message: is 30000 characters; the limit is 20000 (setting maxMessageChars)', 'input');
    expect(long).toMatchObject({ statusCode: 413, body: { error: { code: 'message_too_long', field: 'message' } } });
    const bad = describeFailure('replyTo: this question was already answered', 'input');
    expect(bad).toMatchObject({ statusCode: 400, body: { error: { code: 'invalid_request', field: 'replyTo' } } });
    expect(bad.apology).toBe("Sorry, I can't take that message: this question was already answered");
  });

  it('storage: 503, and a chat apology that asks to send it again', () => {
    const down = describeFailure('connect ECONNREFUSED 127.0.0.1:5432', 'storage');
    expect(down).toMatchObject({ statusCode: 503, body: { error: { code: 'storage_unavailable' } } });
    expect(down.apology).toMatch(/send it again/);
  });
});

describe('auto stage', () => {
  it('input when the error names a field of the message, storage otherwise', () => {
    expect(
      describeFailure('message: is 9 characters; the limit is 5 (setting maxMessageChars)', 'auto').statusCode,
    ).toBe(413);
    expect(describeFailure('replyTo: this question expired at 2026-01-01T10:05:00.000Z', 'auto').statusCode).toBe(400);
    expect(
      describeFailure('Could not prepare the assistant schema: connect ECONNREFUSED 127.0.0.1:9', 'auto').statusCode,
    ).toBe(503);
  });
});
