// The Channel's webhook body validation: a valid body kept verbatim, 400 naming the field.
import { describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_VOICE_BYTES, parseAgentRequest, parseTurnRequest } from '../../src/channel';

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

describe('webhook voice input', () => {
  const audio = Buffer.from('OggS fake opus frames').toString('base64');
  const refusal = (body: unknown) => {
    const result = parseAgentRequest(body);
    if (!('statusCode' in result)) return undefined;
    const { error } = result.body as { error: { field: string; message: string } };
    return [result.statusCode, error.field, error.message] as const;
  };

  it('takes voice instead of message: the audio kept, the base type, an empty message until transcribed', () => {
    expect(
      parseAgentRequest({
        voice: { data: audio, mime_type: 'audio/webm;codecs=opus' },
        user_id: 'owner',
        reply_to: 'q',
      }),
    ).toEqual({
      channel: 'api',
      externalId: 'owner',
      message: '',
      sessionId: 'default',
      metadata: {},
      replyTo: 'q',
      voice: { data: audio, mimeType: 'audio/webm' },
    });
  });

  it('refuses neither field, both fields, and bad voice parts with 400 naming the field', () => {
    expect(refusal({ user_id: 'u' })).toEqual([400, 'message', expect.stringContaining('or send a voice note')]);
    expect(refusal({ message: 'hi', voice: { data: audio, mime_type: 'audio/ogg' }, user_id: 'u' })?.[1]).toBe('voice');
    expect(refusal({ voice: 'abc', user_id: 'u' })?.[1]).toBe('voice');
    expect(refusal({ voice: { data: audio, mime_type: 'audio/ogg', name: 'x' }, user_id: 'u' })?.[1]).toBe(
      'voice.name',
    );
    expect(refusal({ voice: { data: audio, mime_type: 'video/mp4' }, user_id: 'u' })?.slice(0, 2)).toEqual([
      400,
      'voice.mime_type',
    ]);
    expect(refusal({ voice: { data: audio }, user_id: 'u' })?.[1]).toBe('voice.mime_type');
    expect(refusal({ voice: { data: '', mime_type: 'audio/ogg' }, user_id: 'u' })?.[1]).toBe('voice.data');
    expect(refusal({ voice: { data: 'not base64!', mime_type: 'audio/ogg' }, user_id: 'u' })).toEqual([
      400,
      'voice.data',
      expect.stringContaining('must be base64'),
    ]);
    expect(refusal({ voice: { data: 'abcde', mime_type: 'audio/ogg' }, user_id: 'u' })?.[1]).toBe('voice.data');
    expect(refusal({ voice: { data: audio, mime_type: 'audio/ogg' } })?.[1]).toBe('user_id');
  });

  it('refuses audio over the limit with 413 naming voice.data, and takes audio at the limit', () => {
    const atLimit = Buffer.alloc(MAX_WEBHOOK_VOICE_BYTES).toString('base64');
    expect(parseAgentRequest({ voice: { data: atLimit, mime_type: 'audio/ogg' }, user_id: 'u' })).toMatchObject({
      voice: { mimeType: 'audio/ogg' },
    });
    const over = Buffer.alloc(MAX_WEBHOOK_VOICE_BYTES + 3).toString('base64');
    expect(refusal({ voice: { data: over, mime_type: 'audio/ogg' }, user_id: 'u' })).toEqual([
      413,
      'voice.data',
      'voice.data: must be at most 3 MB of audio',
    ]);
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
