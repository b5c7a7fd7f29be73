// Forgetting everything about a user on a real Postgres 17: every table of the user's data emptied for them alone,
// identities kept.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

async function fill(userId: string): Promise<void> {
  await assistant.remember(db.pool, userId, { content: 'Stefan Huber is my accountant' });
  await assistant.relate(db.pool, userId, { from: 'Stefan Huber', relation: 'works_at', to: 'Acme' });
  const parent = await assistant.createTask(db.pool, userId, { title: 'Taxes' });
  await assistant.createTask(db.pool, userId, { title: 'Receipts', parentId: parent.id });
  await assistant.storeTurn(db.pool, userId, { userMessage: 'hi', assistantReply: 'hello' });
  const shown = await assistant.receiveMessage(db.pool, userId, { message: 'show me' });
  await assistant.attachToTurn(db.pool, userId, shown.turnId, {
    fileName: 'a.png',
    mimeType: 'image/png',
    data: 'iVBORw0K',
  });
  await assistant.finishTurn(db.pool, userId, shown.turnId, 'shown');
  await assistant.askUser(db.pool, userId, { question: 'Which year?' });
  await assistant.updateUserSettings(db.pool, userId, { timeZone: 'Europe/Vienna' });
  await assistant.setReminder(db.pool, userId, { text: 'stretch', when: 'in 1 hour' }, new Date());
  const action = await assistant.scheduleAction(
    db.pool,
    userId,
    { instruction: 'news', schedule: 'every minute' },
    new Date(Date.now() - 120_000),
  );
  if (!action.ok) throw new Error(action.message);
  await assistant.claimDueActions(db.pool, new Date());
  await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'hello' });
  await assistant.recordFailure(db.pool, { source: 'delivery', userId, message: 'could not be delivered' });
  await db.pool.query(`INSERT INTO assistant.nudge_log (user_id, subject, last_sent_at) VALUES ($1, 'task:1', now())`, [
    userId,
  ]);
  const check = await assistant.addCheck(
    db.pool,
    userId,
    { what: 'https://example.com/', schedule: 'every minute' },
    new Date(),
  );
  if (!check.ok) throw new Error(check.message);
  await assistant.claimDueChecks(db.pool, new Date());
  await db.pool.query(
    `INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id) VALUES ($1, 'default', $2)`,
    [userId, shown.turnId],
  );
  await assistant.consolidateMemories(db.pool, userId, { now: new Date(), summarise: async () => 'unused' });
}

const rowsOf = async (userId: string) => {
  const counts: Record<string, number> = {};
  for (const table of assistant.USER_DATA_TABLES) {
    const result = await db.pool.query(`SELECT count(*) FROM assistant.${table} WHERE user_id = $1`, [userId]);
    counts[table] = Number(result.rows[0].count);
  }
  return counts;
};

describe('forget everything', () => {
  it('deletes every row of the user in every user table, and nobody else’s', async () => {
    const [alice, bob] = [await createUser(db.pool, 'alice'), await createUser(db.pool, 'bob')];
    await fill(alice);
    await fill(bob);
    expect(Object.values(await rowsOf(alice)).every((n) => n > 0)).toBe(true);
    const counts = await assistant.forgetEverything(db.pool, alice);
    expect(counts).toMatchObject({ memories: 1, entities: 2, relations: 1, tasks: 2, turns: 4, pending_questions: 1 });
    expect(Object.values(await rowsOf(alice)).every((n) => n === 0)).toBe(true);
    expect(Object.values(await rowsOf(bob)).every((n) => n > 0)).toBe(true);
    expect(await assistant.listIdentities(db.pool, alice)).toHaveLength(1);
  });

  it('keeps a turn still in flight (the one asking to forget), so that its reply can be stored', async () => {
    const userId = await createUser(db.pool, 'in-flight');
    await fill(userId);
    const asking = await assistant.receiveMessage(db.pool, userId, { message: 'forget everything about me' });
    await assistant.forgetEverything(db.pool, userId);
    await assistant.finishTurn(db.pool, userId, asking.turnId, 'Done: everything is forgotten.');
    const left = await db.pool.query('SELECT role, content FROM assistant.turns WHERE user_id = $1 ORDER BY id', [
      userId,
    ]);
    expect(left.rows).toEqual([
      { role: 'user', content: 'forget everything about me' },
      { role: 'assistant', content: 'Done: everything is forgotten.' },
    ]);
  });

  it('names a bad user', async () => {
    await expectFieldError(() => assistant.forgetEverything(db.pool, 'x'), 'userId');
    await expectFieldError(() => assistant.forgetEverything(db.pool, '00000000-0000-4000-8000-000000000000'), 'userId');
  });

  it('the list of user tables covers every table of the schema with a user_id column', async () => {
    const result = await db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'assistant' AND column_name = 'user_id'`,
    );
    const known = [
      ...assistant.USER_DATA_TABLES,
      ...assistant.USER_IDENTITY_TABLES,
      ...assistant.USER_ACCOUNTING_TABLES,
    ].sort();
    expect(result.rows.map((row) => row.table_name).sort()).toEqual(known);
  });
});
