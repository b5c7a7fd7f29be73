// Forgetting everything about a user on a real Postgres 17: every table of the user's data emptied for them alone,
// identities kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import * as assistant from '../../src';
import { startAssistantDatabase, type TestDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await startAssistantDatabase();
  pool = db.pool;
});
afterAll(async () => {
  await db?.stop();
});

async function fill(userId: string): Promise<void> {
  await assistant.remember(pool, userId, { content: 'Stefan Huber is my accountant' });
  await assistant.relate(pool, userId, { from: 'Stefan Huber', relation: 'works_at', to: 'Acme' });
  const parent = await assistant.createTask(pool, userId, { title: 'Taxes' });
  await assistant.createTask(pool, userId, { title: 'Receipts', parentId: parent.id });
  await assistant.storeTurn(pool, userId, { userMessage: 'hi', assistantReply: 'hello' });
  const shown = await assistant.receiveMessage(pool, userId, { message: 'show me' });
  await assistant.attachToTurn(pool, userId, shown.turnId, {
    fileName: 'a.png',
    mimeType: 'image/png',
    data: 'iVBORw0K',
  });
  await assistant.finishTurn(pool, userId, shown.turnId, 'shown');
  await assistant.askUser(pool, userId, { question: 'Which year?' });
  await assistant.updateUserSettings(pool, userId, { timeZone: 'Europe/Vienna' });
  await assistant.setReminder(pool, userId, { text: 'stretch', when: 'in 1 hour' }, new Date());
  const action = await assistant.scheduleAction(
    pool,
    userId,
    { instruction: 'news', schedule: 'every minute' },
    new Date(Date.now() - 120_000),
  );
  if (!action.ok) throw new Error(action.message);
  await assistant.claimDueActions(pool, new Date());
  await assistant.queueMessage(pool, userId, { kind: 'notice', text: 'hello' });
  await assistant.recordFailure(pool, { source: 'delivery', userId, message: 'could not be delivered' });
  await pool.query(`INSERT INTO assistant.nudge_log (user_id, subject, last_sent_at) VALUES ($1, 'task:1', now())`, [
    userId,
  ]);
  const check = await assistant.addCheck(
    pool,
    userId,
    { what: 'https://example.com/', schedule: 'every minute' },
    new Date(),
  );
  if (!check.ok) throw new Error(check.message);
  await assistant.claimDueChecks(pool, new Date());
}

const rowsOf = async (userId: string) => {
  const counts: Record<string, number> = {};
  for (const table of assistant.USER_DATA_TABLES) {
    const result = await pool.query(`SELECT count(*) FROM assistant.${table} WHERE user_id = $1`, [userId]);
    counts[table] = Number(result.rows[0].count);
  }
  return counts;
};

describe('forget everything', () => {
  it('deletes every row of the user in every user table, and nobody else’s', async () => {
    const [alice, bob] = [await createUser(pool, 'alice'), await createUser(pool, 'bob')];
    await fill(alice);
    await fill(bob);
    expect(Object.values(await rowsOf(alice)).every((n) => n > 0)).toBe(true);
    const counts = await assistant.forgetEverything(pool, alice);
    expect(counts).toMatchObject({ memories: 1, entities: 2, relations: 1, tasks: 2, turns: 4, pending_questions: 1 });
    expect(Object.values(await rowsOf(alice)).every((n) => n === 0)).toBe(true);
    expect(Object.values(await rowsOf(bob)).every((n) => n > 0)).toBe(true);
    expect(await assistant.listIdentities(pool, alice)).toHaveLength(1);
  });

  it('keeps a turn still in flight (the one asking to forget), so that its reply can be stored', async () => {
    const userId = await createUser(pool, 'in-flight');
    await fill(userId);
    const asking = await assistant.receiveMessage(pool, userId, { message: 'forget everything about me' });
    await assistant.forgetEverything(pool, userId);
    await assistant.finishTurn(pool, userId, asking.turnId, 'Done: everything is forgotten.');
    const left = await pool.query('SELECT role, content FROM assistant.turns WHERE user_id = $1 ORDER BY id', [userId]);
    expect(left.rows).toEqual([
      { role: 'user', content: 'forget everything about me' },
      { role: 'assistant', content: 'Done: everything is forgotten.' },
    ]);
  });

  it('names a bad user', async () => {
    await expectFieldError(() => assistant.forgetEverything(pool, 'x'), 'userId');
    await expectFieldError(() => assistant.forgetEverything(pool, '00000000-0000-4000-8000-000000000000'), 'userId');
  });

  it('the list of user tables covers every table of the schema with a user_id column', async () => {
    const result = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'assistant' AND column_name = 'user_id'`,
    );
    const known = [...assistant.USER_DATA_TABLES, ...assistant.USER_IDENTITY_TABLES].sort();
    expect(result.rows.map((row) => row.table_name).sort()).toEqual(known);
  });
});
