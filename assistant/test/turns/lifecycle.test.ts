// A turn's life on a real Postgres 17: stored on arrival (pending) before any model runs, answered or failed, the
// reply kept even after a caller stopped waiting, limits checked before anything is stored, history before it.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const turnCount = async (userId: string) =>
  Number((await db.pool.query('SELECT count(*) FROM assistant.turns WHERE user_id = $1', [userId])).rows[0].count);

describe('turn lifecycle', () => {
  it('stores the message as pending, then the reply; getTurn and awaitTurn see it answered', async () => {
    const userId = await createUser(db.pool, 'life');
    const received = await assistant.receiveMessage(db.pool, userId, { message: 'What is on today?', sessionId: 's' });
    expect(received).toMatchObject({ kind: 'turn', sessionId: 's' });
    if (received.kind !== 'turn') throw new Error('unreachable');
    expect(await assistant.getTurn(db.pool, userId, received.turnId)).toMatchObject({ status: 'pending', reply: null });
    const waiting = assistant.awaitTurn(db.pool, userId, received.turnId, { deadline: new Date(Date.now() + 60_000) });
    await assistant.finishTurn(db.pool, userId, received.turnId, 'Nothing yet.');
    expect(await waiting).toMatchObject({ status: 'answered', reply: 'Nothing yet.', error: null });
    await expectFieldError(() => assistant.finishTurn(db.pool, userId, received.turnId, 'again'), 'turnId');
  });

  it('a failed turn keeps the message and the error; the next turn finds the message in its history', async () => {
    const userId = await createUser(db.pool, 'failed');
    const first = await assistant.receiveMessage(db.pool, userId, { message: 'Book the dentist for Friday' });
    if (first.kind !== 'turn') throw new Error('unreachable');
    await assistant.failTurn(db.pool, userId, first.turnId, '502: the language model failed');
    expect(await assistant.getTurn(db.pool, userId, first.turnId)).toMatchObject({
      status: 'failed',
      error: '502: the language model failed',
    });
    const second = await assistant.receiveMessage(db.pool, userId, { message: 'What did I just ask?' });
    if (second.kind !== 'turn') throw new Error('unreachable');
    const context = await assistant.loadContext(db.pool, userId, {
      turnId: second.turnId,
      message: 'What did I just ask?',
    });
    expect(context.messages).toEqual([{ role: 'user', content: 'Book the dentist for Friday' }]);
  });

  it("a turn failed with n8n's status words keeps what the model gateway's ledger says went wrong", async () => {
    const userId = await createUser(db.pool, 'refused');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'a very long question' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    const said = "the prompt for m is 9000 tokens (estimated) and 2048 are kept for the answer, but the model's window";
    await db.pool.query(
      `INSERT INTO assistant.model_calls (upstream, route, job, ref, provider, model, latency_ms, status, outcome, error)
       VALUES ('llm', 'chat', 'agent', $1, 'p', 'm', 1, 400, 'refused', $2), ('llm', 'chat', 'agent', '999999', 'p',
       'm', 1, 500, 'failed', 'another turn')`,
      [String(turn.turnId), said],
    );
    await assistant.failTurn(db.pool, userId, turn.turnId, 'Bad request - please check your parameters');
    expect((await assistant.getTurn(db.pool, userId, turn.turnId)).error).toBe(
      `Bad request - please check your parameters (${said})`,
    );
  });

  it('an answered turn is not failed afterwards (a late error after the reply is kept changes nothing)', async () => {
    const userId = await createUser(db.pool, 'late');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'hi' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    await assistant.finishTurn(db.pool, userId, turn.turnId, 'hello');
    expect(await assistant.failTurn(db.pool, userId, turn.turnId, 'timeout')).toMatchObject({ status: 'answered' });
  });

  it('awaitTurn returns the turn still pending at the deadline', async () => {
    const userId = await createUser(db.pool, 'deadline');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'slow one' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    const state = await assistant.awaitTurn(db.pool, userId, turn.turnId, { deadline: new Date(Date.now() + 50) });
    expect(state.status).toBe('pending');
  });

  it('a reply after the caller stopped waiting is queued in the outbox for them; one in time is not', async () => {
    const userId = await createUser(db.pool, 'late');
    const replies = async () =>
      (await db.pool.query("SELECT text, data FROM assistant.outbox WHERE user_id = $1 AND kind = 'reply'", [userId]))
        .rows;
    const slow = await assistant.receiveMessage(db.pool, userId, { message: 'slow one', sessionId: 's' });
    if (slow.kind !== 'turn') throw new Error('unreachable');
    await assistant.awaitTurn(db.pool, userId, slow.turnId, { deadline: new Date(Date.now() + 20) });
    expect(await assistant.finishTurn(db.pool, userId, slow.turnId, 'Finally.')).toMatchObject({ lateReply: true });
    expect(await replies()).toEqual([{ text: 'Finally.', data: { turn_id: slow.turnId, session_id: 's' } }]);

    const quick = await assistant.receiveMessage(db.pool, userId, { message: 'quick one', sessionId: 's' });
    if (quick.kind !== 'turn') throw new Error('unreachable');
    const waiting = assistant.awaitTurn(db.pool, userId, quick.turnId, { deadline: new Date(Date.now() + 60_000) });
    expect(await assistant.finishTurn(db.pool, userId, quick.turnId, 'Right away.')).toMatchObject({
      lateReply: false,
    });
    expect(await waiting).toMatchObject({ status: 'answered' });
    expect(await replies()).toHaveLength(1);
  });

  it("a run that used all its steps is answered in plain words, not with the agent's stop text", async () => {
    const userId = await createUser(db.pool, 'steps');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'a long task' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    await assistant.finishTurn(db.pool, userId, turn.turnId, 'Agent stopped due to max iterations.');
    expect((await assistant.getTurn(db.pool, userId, turn.turnId)).reply).toBe(assistant.STEPS_USED_UP_REPLY);
  });

  it('a Telegram turn is answered by its run, never through the outbox', async () => {
    const userId = await createUser(db.pool, 'late-telegram');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'slow', channel: 'telegram' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    await assistant.awaitTurn(db.pool, userId, turn.turnId, { deadline: new Date(Date.now() + 20) });
    expect(await assistant.finishTurn(db.pool, userId, turn.turnId, 'Here.')).toMatchObject({ lateReply: false });
  });

  it('refuses over-long messages and metadata before storing anything, naming the field and the setting', async () => {
    const userId = await createUser(db.pool, 'limits');
    await assistant.updateInstanceSettings(db.pool, { maxMessageChars: 100 });
    try {
      await expectFieldError(() => assistant.receiveMessage(db.pool, userId, { message: 'x'.repeat(101) }), 'message');
      await expect(assistant.receiveMessage(db.pool, userId, { message: 'x'.repeat(101) })).rejects.toThrow(
        /limit is 100 \(setting maxMessageChars\)/,
      );
      const metadata = { blob: 'y'.repeat(100_001) };
      await expectFieldError(() => assistant.receiveMessage(db.pool, userId, { message: 'ok', metadata }), 'metadata');
      await expectFieldError(
        () => assistant.receiveMessage(db.pool, userId, { message: 'ok', metadata: [1] }),
        'metadata',
      );
      expect(await turnCount(userId)).toBe(0);
    } finally {
      await assistant.updateInstanceSettings(db.pool, { maxMessageChars: 200_000 });
    }
  });

  it('names bad turn ids and users', async () => {
    const userId = await createUser(db.pool, 'bad');
    await expectFieldError(() => assistant.getTurn(db.pool, userId, 'one'), 'turnId');
    await expectFieldError(() => assistant.getTurn(db.pool, userId, 999_999_999), 'turnId', 'notFound');
    await expectFieldError(() => assistant.failTurn(db.pool, 'nobody', 1, 'x'), 'userId');
    const other = await createUser(db.pool, 'other');
    const turn = await assistant.receiveMessage(db.pool, other, { message: 'mine' });
    await expectFieldError(() => assistant.finishTurn(db.pool, userId, turn.turnId, 'stolen'), 'turnId', 'notFound');
  });

  it('the reply deadline and message cap are instance settings with checked values', async () => {
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { replyDeadlineSeconds: 0 }),
      'replyDeadlineSeconds',
    );
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { maxMessageChars: 'lots' }),
      'maxMessageChars',
    );
    const settings = await assistant.updateInstanceSettings(db.pool, { replyDeadlineSeconds: '5' });
    expect(settings.replyDeadlineSeconds).toBe(5);
    expect((await assistant.updateInstanceSettings(db.pool, { replyDeadlineSeconds: 120 })).replyDeadlineSeconds).toBe(
      120,
    );
  });

  it('a turn pending past the run limit is failed when the next message arrives (time injected)', async () => {
    const userId = await createUser(db.pool, 'stale');
    const start = new Date('2026-03-01T12:00:00Z');
    const old = await assistant.receiveMessage(db.pool, userId, { message: 'first', now: start });
    await db.pool.query('UPDATE assistant.turns SET created_at = $2 WHERE id = $1', [old.turnId, start]);
    const soon = new Date(start.getTime() + (assistant.TURN_RUN_LIMIT_SECONDS - 1) * 1000);
    await assistant.receiveMessage(db.pool, userId, { message: 'second', now: soon });
    expect((await assistant.getTurn(db.pool, userId, old.turnId)).status).toBe('pending');
    const late = new Date(start.getTime() + (assistant.TURN_RUN_LIMIT_SECONDS + 1) * 1000);
    await assistant.receiveMessage(db.pool, userId, { message: 'third', now: late });
    expect(await assistant.getTurn(db.pool, userId, old.turnId)).toMatchObject({
      status: 'failed',
      error: `no reply within the run limit of ${assistant.TURN_RUN_LIMIT_SECONDS} s (the run was stopped)`,
    });
  });

  it('a delivery failure after the reply marks the turn failed and keeps the reply', async () => {
    const userId = await createUser(db.pool, 'delivery');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'hi', channel: 'telegram' });
    await assistant.finishTurn(db.pool, userId, turn.turnId, 'hello');
    await assistant.failTurn(db.pool, userId, turn.turnId, 'delivery failed: 400 chat not found', { afterReply: true });
    expect(await assistant.getTurn(db.pool, userId, turn.turnId)).toMatchObject({
      status: 'failed',
      reply: 'hello',
      error: 'delivery failed: 400 chat not found',
    });
  });
});
