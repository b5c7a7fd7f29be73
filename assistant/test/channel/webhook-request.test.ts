// The Channel's webhook body validation: a valid body kept verbatim, 400 naming the field.
import { describe, expect, it } from 'vitest';
import { parseAgentRequest, parseTurnRequest } from '../../src/channel';

describe('webhook body validation', () => {
  const fieldOf = (body: unknown): string | undefined => {
    const result = parseAgentRequest(body);
    return 'statusCode' in result ? (result.body as { error: { field: string } }).error.field : undefined;
  };

  it('accepts a valid body and keeps the message verbatim', () => {
    const message = '  "quoted" $1 \\n 🙂  ';
    expect(parseAgentRequest({ message, user_id: ' u1 ', session_id: 's', metadata: { a: 1 } })).toEqual({
      channel: 'api',
      externalId: 'u1',
      message,
      sessionId: 's',
      metadata: { a: 1 },
    });
    expect(parseAgentRequest({ message: 'hi', user_id: 'u1' })).toMatchObject({ sessionId: 'default', metadata: {} });
  });

  it('answers 400 naming the field', () => {
    expect(parseAgentRequest({ user_id: 'u' })).toMatchObject({
      statusCode: 400,
      body: { error: { code: 'invalid_request', field: 'message' } },
    });
    expect(fieldOf(null)).toBe('body');
    expect(fieldOf('text')).toBe('body');
    expect(fieldOf([])).toBe('body');
    expect(fieldOf({ message: '   ', user_id: 'u' })).toBe('message');
    expect(fieldOf({ message: 5, user_id: 'u' })).toBe('message');
    expect(fieldOf({ message: 'hi' })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 7 })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'a\nb' })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'x'.repeat(201) })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'u', session_id: '' })).toBe('session_id');
    expect(fieldOf({ message: 'hi', user_id: 'u', metadata: [1] })).toBe('metadata');
    expect(fieldOf({ message: 'hi', user_id: 'u', userId: 'v' })).toBe('userId');
    expect(fieldOf({ message: 'hi', user_id: 'u', reply_to: 7 })).toBe('reply_to');
  });

  it('takes reply_to, and refuses metadata over 100 kB with 413 before anything runs', () => {
    expect(parseAgentRequest({ message: '123456', user_id: 'u', reply_to: 'q-1' })).toMatchObject({ replyTo: 'q-1' });
    expect(parseAgentRequest({ message: 'hi', user_id: 'u', metadata: { blob: 'x'.repeat(100_001) } })).toMatchObject({
      statusCode: 413,
      body: { error: { code: 'metadata_too_large', field: 'metadata' } },
    });
  });
});

describe('GET /webhook/agent/turn query', () => {
  it('takes user_id and turn_id, and names the first bad parameter', () => {
    expect(parseTurnRequest({ user_id: 'alice', turn_id: '42' })).toEqual({ externalId: 'alice', turnId: '42' });
    const fieldOf = (query: unknown) => {
      const result = parseTurnRequest(query);
      return 'statusCode' in result ? (result.body as { error: { field: string } }).error.field : undefined;
    };
    expect(fieldOf({ turn_id: '42' })).toBe('user_id');
    expect(fieldOf({ user_id: 'alice' })).toBe('turn_id');
    expect(fieldOf({ user_id: 'alice', turn_id: '0' })).toBe('turn_id');
    expect(fieldOf({ user_id: 'alice', turn_id: '4x' })).toBe('turn_id');
    expect(fieldOf({ user_id: 'alice', turn_id: '4', after: '1' })).toBe('after');
  });
});
