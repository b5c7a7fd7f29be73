// Pending questions on a real Postgres 17: an incoming message is matched before it becomes a turn; on Telegram a
// reply to a question's message answers that one and a plain message the oldest; on the webhook only reply_to; a
// one-time code is stored only redacted, and handed to the waiting step once.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const storedContents = async (userId: string) =>
  (await db.pool.query('SELECT content, redacted FROM assistant.turns WHERE user_id = $1 ORDER BY id', [userId])).rows;

describe('pending questions', () => {
  it('a Telegram message answers the oldest open question; a reply answers the one replied to', async () => {
    const userId = await createUser(db.pool, 'tg');
    const older = await assistant.askUser(db.pool, userId, { kind: 'question', question: 'Which account?' });
    const newer = await assistant.askUser(db.pool, userId, { kind: 'approval', question: 'Install the expert?' });
    await assistant.setQuestionMessageId(db.pool, newer.id, 4711);
    const reply = await assistant.receiveMessage(db.pool, userId, {
      message: 'yes',
      channel: 'telegram',
      replyToMessageId: '4711',
    });
    expect(reply).toMatchObject({ kind: 'answer', questionId: newer.id, questionKind: 'approval' });
    const plain = await assistant.receiveMessage(db.pool, userId, { message: 'the business one', channel: 'telegram' });
    expect(plain).toMatchObject({ kind: 'answer', questionId: older.id });
    expect(await assistant.takeAnswer(db.pool, userId, older.id)).toEqual({
      status: 'answered',
      answer: 'the business one',
    });
    const next = await assistant.receiveMessage(db.pool, userId, { message: 'now a new turn', channel: 'telegram' });
    expect(next.kind).toBe('turn');
  });

  it('stores a one-time code only redacted, and hands it to the waiting step once', async () => {
    const userId = await createUser(db.pool, 'otp');
    const question = await assistant.askUser(db.pool, userId, {
      kind: 'one_time_code',
      question: 'The code from your app?',
    });
    expect(await assistant.takeAnswer(db.pool, userId, question.id)).toEqual({ status: 'waiting' });
    await assistant.receiveMessage(db.pool, userId, { message: ' 492 113 ', channel: 'api', replyTo: question.id });
    expect(await storedContents(userId)).toEqual([{ content: assistant.REDACTED_CODE, redacted: true }]);
    expect(await assistant.takeAnswer(db.pool, userId, question.id)).toEqual({ status: 'answered', answer: '492 113' });
    expect(await assistant.takeAnswer(db.pool, userId, question.id)).toEqual({ status: 'taken' });
    const leftovers = await db.pool.query("SELECT count(*) FROM assistant.pending_questions WHERE answer LIKE '%492%'");
    expect(Number(leftovers.rows[0].count)).toBe(0);
  });

  it('on the webhook a plain message is a new turn; reply_to must name an open question of this user', async () => {
    const userId = await createUser(db.pool, 'api');
    const question = await assistant.askUser(db.pool, userId, { question: 'Which day?', expiresInSeconds: 60 });
    expect((await assistant.receiveMessage(db.pool, userId, { message: 'unrelated' })).kind).toBe('turn');
    const stranger = await createUser(db.pool, 'stranger');
    await expectFieldError(
      () => assistant.receiveMessage(db.pool, stranger, { message: 'x', replyTo: question.id }),
      'replyTo',
      'notFound',
    );
    await expectFieldError(() => assistant.receiveMessage(db.pool, userId, { message: 'x', replyTo: 'q1' }), 'replyTo');
    await assistant.receiveMessage(db.pool, userId, { message: 'Monday', replyTo: question.id });
    await expectFieldError(
      () => assistant.receiveMessage(db.pool, userId, { message: 'x', replyTo: question.id }),
      'replyTo',
    );
  });

  it('an expired question is not answered, and says when it expired (time injected)', async () => {
    const userId = await createUser(db.pool, 'expired');
    const asked = new Date('2026-01-01T10:00:00Z');
    const question = await assistant.askUser(db.pool, userId, { question: 'Code?', expiresInSeconds: 300, now: asked });
    const later = new Date('2026-01-01T10:05:01Z');
    await expect(
      assistant.receiveMessage(db.pool, userId, { message: '1', replyTo: question.id, now: later }),
    ).rejects.toThrow(/expired at 2026-01-01T10:05:00.000Z/);
    const plain = await assistant.receiveMessage(db.pool, userId, {
      message: 'hello',
      channel: 'telegram',
      now: later,
    });
    expect(plain.kind).toBe('turn');
    expect(await assistant.takeAnswer(db.pool, userId, question.id, later)).toEqual({ status: 'expired' });
  });

  it('names bad input', async () => {
    const userId = await createUser(db.pool, 'bad');
    await expectFieldError(() => assistant.askUser(db.pool, userId, { kind: 'gossip', question: 'x' }), 'kind');
    await expectFieldError(() => assistant.askUser(db.pool, userId, { question: '' }), 'question');
    await expectFieldError(
      () => assistant.askUser(db.pool, userId, { question: 'x', expiresInSeconds: 0 }),
      'expiresInSeconds',
    );
  });

  it('a question asked by a run is tied to its turn: the waiting caller sees it, and reply_to continues that run', async () => {
    const userId = await createUser(db.pool, 'run');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'sign me in to the shop' });
    if (turn.kind !== 'turn') throw new Error('expected a turn');
    const question = await assistant.askUser(db.pool, userId, {
      kind: 'one_time_code',
      question: 'shop.example asks for a one-time code. Reply with the code.',
      turnId: turn.turnId,
    });
    expect(question).toMatchObject({ turnId: turn.turnId, attempt: 1 });
    const waited = await assistant.awaitTurn(db.pool, userId, turn.turnId, { deadline: new Date(Date.now() + 5_000) });
    expect(waited).toMatchObject({ status: 'pending', question: { id: question.id } });
    const answer = await assistant.receiveMessage(db.pool, userId, { message: '123456', replyTo: question.id });
    expect(answer).toMatchObject({ kind: 'answer', runTurnId: turn.turnId });
    // Answered: the turn no longer shows the question; a short wait ends at its deadline, still pending.
    const after = await assistant.awaitTurn(db.pool, userId, turn.turnId, { deadline: new Date(Date.now() + 100) });
    expect(after.status).toBe('pending');
    expect(after.question).toBeUndefined();
    await expectFieldError(
      () => assistant.askUser(db.pool, userId, { question: 'x', turnId: turn.turnId + 1000 }),
      'turnId',
    );
  });

  it('waits for an answer; a code can be left for the step that types it; expiry ends the wait', async () => {
    const userId = await createUser(db.pool, 'wait');
    const code = await assistant.askUser(db.pool, userId, { kind: 'one_time_code', question: 'Code?' });
    setTimeout(() => {
      void assistant.receiveMessage(db.pool, userId, { message: '654321', replyTo: code.id });
    }, 200);
    expect(await assistant.waitForAnswer(db.pool, userId, code.id, { leaveAnswer: true })).toEqual({
      status: 'answered',
    });
    expect(await assistant.waitForAnswer(db.pool, userId, code.id)).toEqual({ status: 'answered', answer: '654321' });
    // Taken once: a second wait ends at once instead of waiting for an answer that will not come again.
    expect(await assistant.waitForAnswer(db.pool, userId, code.id)).toEqual({ status: 'taken' });
    const short = await assistant.askUser(db.pool, userId, { question: 'Still there?', expiresInSeconds: 1 });
    expect(await assistant.waitForAnswer(db.pool, userId, short.id)).toEqual({ status: 'expired' });
    const open = await assistant.askUser(db.pool, userId, { question: 'And now?' });
    const early = await assistant.waitForAnswer(db.pool, userId, open.id, { deadline: new Date(Date.now() + 100) });
    expect(early).toEqual({ status: 'waiting' });
  });

  it('expires after the questionTtlSeconds setting (default 5 minutes)', async () => {
    const userId = await createUser(db.pool, 'ttl');
    const asked = new Date('2026-03-01T10:00:00Z');
    const before = await assistant.askUser(db.pool, userId, { question: 'a?', now: asked });
    expect(before.expiresAt).toBe('2026-03-01T10:05:00.000Z');
    await assistant.updateInstanceSettings(db.pool, { questionTtlSeconds: 30 });
    try {
      const after = await assistant.askUser(db.pool, userId, { question: 'b?', now: asked });
      expect(after.expiresAt).toBe('2026-03-01T10:00:30.000Z');
      await expectFieldError(
        () => assistant.updateInstanceSettings(db.pool, { questionTtlSeconds: 601 }),
        'questionTtlSeconds',
      );
    } finally {
      await assistant.updateInstanceSettings(db.pool, { questionTtlSeconds: 300 });
    }
  });

  it('a run that waited for its user is not failed as overdue while the wait lasts', async () => {
    const userId = await createUser(db.pool, 'overdue');
    // Turns are stamped by the database clock: the test's times are taken from now on.
    const start = new Date();
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'log in' });
    const asked = new Date(start.getTime() + 200_000);
    await assistant.askUser(db.pool, userId, {
      question: 'Code?',
      turnId: turn.turnId,
      expiresInSeconds: 300,
      now: asked,
    });
    const limit = assistant.TURN_RUN_LIMIT_SECONDS * 1000;
    // Past the run limit since the message, but the run is waiting for its user (the question is open until +500 s).
    await assistant.receiveMessage(db.pool, userId, {
      message: 'other',
      now: new Date(start.getTime() + limit + 70_000),
    });
    expect((await assistant.getTurn(db.pool, userId, turn.turnId)).status).toBe('pending');
    // The wait ended (expired) more than the run limit ago: now it is overdue.
    await assistant.receiveMessage(db.pool, userId, {
      message: 'later',
      now: new Date(asked.getTime() + 300_000 + limit + 1_000),
    });
    expect((await assistant.getTurn(db.pool, userId, turn.turnId)).status).toBe('failed');
  });
});
