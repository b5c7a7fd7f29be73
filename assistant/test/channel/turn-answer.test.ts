// The webhook's answer for an awaited turn: the reply (with its files), the question the run waits on, the failure
// with the turn id, or 504 with the turn id when the deadline passed first.
import { describe, expect, it } from 'vitest';
import { turnAnswer, turnStateAnswer } from '../../src/channel';

const caller = { userId: 'me', sessionId: 'default' };

describe('turn answer', () => {
  it('answered → 200 with the reply and the turn id', () => {
    expect(turnAnswer({ turnId: 7, status: 'answered', reply: 'Hi', error: null }, caller)).toEqual({
      statusCode: 200,
      body: { reply: 'Hi', user_id: 'me', session_id: 'default', turn_id: 7 },
    });
  });

  it('failed → the failure envelope (504 for a timeout, else 502) with the turn id', () => {
    const timedOut = turnAnswer({ turnId: 8, status: 'failed', reply: null, error: 'Request timed out.' }, caller);
    expect(timedOut).toMatchObject({ statusCode: 504, body: { error: { code: 'upstream_timeout' }, turn_id: 8 } });
    const failed = turnAnswer({ turnId: 9, status: 'failed', reply: null, error: '500 boom' }, caller);
    expect(failed).toMatchObject({ statusCode: 502, body: { error: { code: 'upstream_failed' }, turn_id: 9 } });
  });

  it('still pending at the deadline → 504 reply_pending naming the turn and the wait', () => {
    const pending = turnAnswer(
      { turnId: 10, status: 'pending', reply: null, error: null, deadlineSeconds: 120 },
      caller,
    );
    expect(pending.statusCode).toBe(504);
    expect(pending.body).toMatchObject({ error: { code: 'reply_pending' }, turn_id: 10 });
    expect(JSON.stringify(pending.body)).toMatch(/No reply within 120 s: .* turn 10/);
  });

  it('a run waiting for its caller → 200 needs_input {id, question, expires_at}', () => {
    const question = { id: 'q-1', question: 'The code?', expiresAt: '2026-11-24T10:05:00.000Z' };
    expect(turnAnswer({ turnId: 8, status: 'pending', reply: null, error: null, question }, caller)).toEqual({
      statusCode: 200,
      body: {
        needs_input: { id: 'q-1', question: 'The code?', expires_at: '2026-11-24T10:05:00.000Z' },
        user_id: 'me',
        session_id: 'default',
        turn_id: 8,
      },
    });
  });

  it('answered with files → the reply carries them as base64 attachments', () => {
    const attachments = [{ fileName: 'screenshot.png', mimeType: 'image/png', data: 'iVBORw0K' }];
    const answer = turnAnswer({ turnId: 9, status: 'answered', reply: 'Here.', error: null, attachments }, caller);
    expect(answer.body).toMatchObject({
      reply: 'Here.',
      attachments: [{ file_name: 'screenshot.png', mime_type: 'image/png', data_base64: 'iVBORw0K' }],
    });
  });

  it('the state for GET /webhook/agent/turn: 200 with the status and the reply, the error or the question', () => {
    const base = { sessionId: 's-1', reply: null, error: null };
    expect(turnStateAnswer({ ...base, turnId: 3, status: 'answered', reply: 'Done.' }, { userId: 'me' })).toEqual({
      statusCode: 200,
      body: { turn_id: 3, user_id: 'me', session_id: 's-1', status: 'answered', reply: 'Done.' },
    });
    const failed = turnStateAnswer({ ...base, turnId: 4, status: 'failed', error: 'timeout' }, { userId: 'me' });
    expect(failed).toMatchObject({ statusCode: 200, body: { status: 'failed', error: { code: 'upstream_timeout' } } });
    expect(turnStateAnswer({ ...base, turnId: 5, status: 'pending' }, { userId: 'me' }).body).toEqual({
      turn_id: 5,
      user_id: 'me',
      session_id: 's-1',
      status: 'pending',
    });
    const question = { id: 'q-2', question: 'Which day?', expiresAt: '2026-11-28T10:05:00.000Z' };
    expect(turnStateAnswer({ ...base, turnId: 6, status: 'pending', question }, { userId: 'me' }).body).toMatchObject({
      needs_input: { id: 'q-2', question: 'Which day?', expires_at: '2026-11-28T10:05:00.000Z' },
    });
  });
});

describe('needs_input names the kind of question', () => {
  it('an approval or a code: the kind goes with the question, so a page can show buttons or a field', () => {
    const question = { id: 'q-3', kind: 'approval', question: 'Install it?', expiresAt: '2026-11-29T10:05:00.000Z' };
    const turn = { turnId: 9, status: 'pending' as const, reply: null, error: null, question };
    const answered = turnAnswer(turn, { userId: 'owner', sessionId: 'web-chat' }).body as Record<string, unknown>;
    expect(answered.needs_input).toEqual({
      id: 'q-3',
      kind: 'approval',
      question: 'Install it?',
      expires_at: '2026-11-29T10:05:00.000Z',
    });
    const state = turnStateAnswer(turn, { userId: 'owner' }).body as Record<string, unknown>;
    expect(state.needs_input).toMatchObject({ kind: 'approval' });
  });
});
