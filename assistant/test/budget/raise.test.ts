// Raising a spent cap from chat, on a real Postgres: a refusal asks the owner once per window; only their reply to
// that question decides, a yes adds the cap's limit to the window (and the notices count again), a no is final for
// the window, and a plain message is not taken for an answer.
import { beforeEach, describe, expect, it } from 'vitest';
import { setCap } from '../../src/budget/caps';
import { BudgetExceededError, reserveBudget, settleBudget } from '../../src/budget/reserve';
import { recordSendOutcome } from '../../src/delivery/outbox';
import { resolveIdentity } from '../../src/identities/identities';
import { updateInstanceSettings } from '../../src/settings/settings';
import { receiveMessage } from '../../src/turns/lifecycle';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
const NOW = new Date('2026-11-28T12:00:00Z');
const agent = { job: 'agent' };
let owner: string;

const spend = async (micros: number, now = NOW) =>
  settleBudget(db.pool, await reserveBudget(db.pool, { caller: agent, tokens: 1, micros, now }), {
    tokens: 1,
    micros,
  });

const refuse = async (now = NOW) =>
  expect(reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 5000, now })).rejects.toThrow(BudgetExceededError);

const raiseQuestions = async () =>
  (
    await db.pool.query<{ id: string; kind: string; question: string; answer_by_reply: boolean; expires_at: Date }>(
      `SELECT q.id, q.kind, q.question, q.answer_by_reply, q.expires_at FROM assistant.budget_raise_offers o
         JOIN assistant.pending_questions q ON q.id = o.question_id ORDER BY q.created_at`,
    )
  ).rows;

const notices = async () =>
  (
    await db.pool.query<{ id: number; text: string; data: Record<string, unknown> }>(
      "SELECT id::int, text, data FROM assistant.outbox WHERE user_id = $1 AND kind = 'notice' ORDER BY id",
      [owner],
    )
  ).rows;

const window = async () =>
  (
    await db.pool.query(
      'SELECT spent_micros::int AS spent, raised_micros::int AS raised, notified_percent FROM assistant.budget_windows',
    )
  ).rows[0];

/** The owner answers on Telegram, replying to the message `replyTo` (or with a plain message). */
const ownerSays = (message: string, replyToMessageId?: string) =>
  receiveMessage(db.pool, owner, {
    sessionId: 'owner-chat',
    message,
    channel: 'telegram',
    replyToMessageId,
    now: NOW,
  });

/** Delivers the owner's latest notice as Telegram message `messageId`. */
async function deliverLatestNotice(messageId: string) {
  const latest = (await notices()).at(-1)!;
  await recordSendOutcome(
    db.pool,
    { id: latest.id, attempts: 1, userId: owner, kind: 'notice', channel: 'telegram' },
    { status: 'delivered', channelMessageId: messageId },
    { now: NOW, maxAttempts: 3, retrySeconds: 30 },
  );
}

beforeEach(async () => {
  await db.pool.query('DELETE FROM assistant.budget_caps');
  await db.pool.query('DELETE FROM assistant.pending_questions');
  await db.pool.query("DELETE FROM assistant.outbox WHERE kind = 'notice'");
  await updateInstanceSettings(db.pool, { timeZone: 'UTC', ownerTelegramChatId: '777002' });
  owner = (await resolveIdentity(db.pool, 'telegram', '777002')).userId;
  await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
  await spend(10_000);
});

describe('a refusal asks the owner to raise the cap', () => {
  it('once while the question is open, answered only by a reply to it, open until the window resets', async () => {
    await refuse();
    await refuse();
    const questions = await raiseQuestions();
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({ kind: 'approval', answer_by_reply: true });
    expect(questions[0].expires_at.toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(questions[0].question).toBe(
      'Raise the model budget for today ($0.0100) by $0.0100 to $0.0200 until it resets at Sun 2026-11-29 00:00 UTC? ' +
        'Reply to this message with yes to raise it; any other reply leaves it as it is.',
    );
    const [notice] = (await notices()).filter((n) => n.data.question_id);
    expect(notice.text).toMatch(/^The model budget for today \(\$0\.0100\) is spent .*\n\nRaise the model budget/s);
    expect(notice.data).toMatchObject({ question_id: questions[0].id, percent: 100 });
    // A plain message is a message, not an answer.
    expect(await ownerSays('what is on my list?')).toMatchObject({ kind: 'turn' });
  });

  it("a yes in reply to it raises this window by the cap's limit, and the notices count under the new limit", async () => {
    await refuse();
    await deliverLatestNotice('9001');
    const answered = await ownerSays('Yes, raise it', '9001');
    expect(answered).toMatchObject({
      kind: 'answer',
      runTurnId: null,
      reply:
        'Raised: the model budget for today ($0.0200, raised) now holds until it resets at Sun 2026-11-29 00:00 UTC.',
    });
    expect(await window()).toEqual({ spent: 10_000, raised: 10_000, notified_percent: 50 });
    expect((await spend(5000)).map((n) => n.percent)).toEqual([75]);
    // Spent again: asked again.
    await spend(4000);
    await refuse();
    expect(await raiseQuestions()).toHaveLength(2);
  });

  it('a no leaves it spent and is not asked again in this window; the next window starts afresh', async () => {
    await refuse();
    await deliverLatestNotice('9002');
    expect(await ownerSays('no thanks', '9002')).toMatchObject({
      reply:
        'Left as it is: the model budget for today ($0.0100) stays spent until it resets at Sun 2026-11-29 00:00 UTC.',
    });
    const told = (await notices()).length;
    await refuse();
    expect(await raiseQuestions()).toHaveLength(1);
    expect(await notices()).toHaveLength(told);
    expect(
      (await reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 1, now: new Date('2026-11-29T00:00:00Z') }))
        .held,
    ).toHaveLength(1);
  });

  it('a cap of nothing is a ban: the owner is told once, with nothing to approve', async () => {
    await db.pool.query("DELETE FROM assistant.budget_caps WHERE scope = 'instance'");
    await db.pool.query("DELETE FROM assistant.outbox WHERE kind = 'notice'");
    await setCap(db.pool, { scope: 'job', job: 'heartbeat', period: 'day', limitUsd: 0 });
    for (const _ of [1, 2]) {
      await expect(
        reserveBudget(db.pool, { caller: { job: 'heartbeat' }, tokens: 1, micros: 1, now: NOW }),
      ).rejects.toThrow("The heartbeat job's model budget for today ($0.00) is spent");
    }
    expect(await raiseQuestions()).toHaveLength(0);
    expect((await notices()).map((n) => n.text.slice(0, 30))).toEqual(["The heartbeat job's model budg"]);
  });
});
