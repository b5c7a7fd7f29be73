// forget_everything on the user's own yes, on a real Postgres 17: code reads the stored question and the answer; a
// no, no answer in time, another user's question or a question that is not the forget question forgets nothing.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

async function userWithMemory(name: string): Promise<string> {
  const userId = await createUser(db.pool, name);
  await assistant.remember(db.pool, userId, { content: 'My bank is Erste' });
  return userId;
}
const memoriesOf = async (userId: string) =>
  Number((await db.pool.query('SELECT count(*) AS n FROM assistant.memories WHERE user_id = $1', [userId])).rows[0].n);
/** The forget question asked to `userId` and answered with `answer` (as the ask-user workflow does). */
async function answeredForgetQuestion(userId: string, answer: string): Promise<string> {
  const asked = await assistant.askUser(db.pool, userId, { kind: 'approval', question: assistant.FORGET_QUESTION });
  await assistant.receiveMessage(db.pool, userId, { message: answer, replyTo: asked.id });
  return asked.id;
}

describe('forget everything on a yes', () => {
  it('forgets on the user’s yes to the forget question', async () => {
    const userId = await userWithMemory('forget-yes');
    const questionId = await answeredForgetQuestion(userId, 'Yes, forget it all');
    const outcome = await assistant.forgetEverythingIfConfirmed(db.pool, userId, {
      questionId,
      status: 'answered',
      answer: 'Yes, forget it all',
    });
    expect(outcome).toMatchObject({ forgotten: true, deleted: { memories: 1 } });
    expect(await memoriesOf(userId)).toBe(0);
  });

  it('keeps everything on a no, and when the question expired or the run ran out of time', async () => {
    const userId = await userWithMemory('forget-no');
    const questionId = await answeredForgetQuestion(userId, 'no, keep it');
    expect(
      await assistant.forgetEverythingIfConfirmed(db.pool, userId, { questionId, status: 'answered', answer: 'no' }),
    ).toEqual({ forgotten: false, result: 'Nothing was forgotten: the user did not say yes. Everything is kept.' });
    for (const status of ['expired', 'out_of_time']) {
      expect(
        await assistant.forgetEverythingIfConfirmed(db.pool, userId, { questionId, status, answer: 'yes' }),
      ).toEqual({ forgotten: false, result: 'Nothing was forgotten: the user did not answer in time.' });
    }
    expect(await memoriesOf(userId)).toBe(1);
  });

  it('refuses a question that is not this user’s answered forget question, naming the field', async () => {
    const userId = await userWithMemory('forget-refused');
    const other = await userWithMemory('forget-other');
    const othersYes = await answeredForgetQuestion(other, 'yes');
    const free = await assistant.askUser(db.pool, userId, { kind: 'question', question: assistant.FORGET_QUESTION });
    await assistant.receiveMessage(db.pool, userId, { message: 'yes', replyTo: free.id });
    const otherApproval = await assistant.askUser(db.pool, userId, { kind: 'approval', question: 'Install it?' });
    const unanswered = await assistant.askUser(db.pool, userId, {
      kind: 'approval',
      question: assistant.FORGET_QUESTION,
    });
    const cases: Array<[string, RegExp]> = [
      [othersYes, /was not asked to this user/],
      [free.id, /is not the approval question for forgetting everything/],
      [otherApproval.id, /is not the approval question for forgetting everything/],
      [unanswered.id, /has not been answered/],
    ];
    for (const [questionId, message] of cases) {
      const forget = () =>
        assistant.forgetEverythingIfConfirmed(db.pool, userId, { questionId, status: 'answered', answer: 'yes' });
      await expectFieldError(forget, 'questionId');
      await expect(forget()).rejects.toThrow(message);
    }
    expect(await memoriesOf(userId)).toBe(1);
    expect(await memoriesOf(other)).toBe(1);
  });
});
