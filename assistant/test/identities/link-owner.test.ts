// Linking the owner's Telegram chat and their API user_id as one user, on a real Postgres 17: fresh, idempotent,
// and merging two users that both have data (entities of the same name become one).
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('link the owner', () => {
  it('links a new pair, then is idempotent', async () => {
    const first = await assistant.linkOwnerIdentities(db.pool, { apiUserId: 'owner-a', telegramChatId: '1001' });
    expect(first.identities).toEqual(['api:owner-a', 'telegram:1001']);
    expect(first.merged).toBeUndefined();
    const again = await assistant.linkOwnerIdentities(db.pool, { apiUserId: 'owner-a', telegramChatId: 1001 });
    expect(again.userId).toBe(first.userId);
    expect((await assistant.resolveIdentity(db.pool, 'api', 'owner-a')).userId).toBe(first.userId);
  });

  it('merges the API user’s memories, graph and tasks into the Telegram user', async () => {
    const telegram = (await assistant.resolveIdentity(db.pool, 'telegram', '2002')).userId;
    const api = (await assistant.resolveIdentity(db.pool, 'api', 'owner-b')).userId;
    await assistant.remember(db.pool, telegram, { content: 'I live in Vienna' });
    await assistant.relate(db.pool, telegram, { from: 'Stefan Huber', relation: 'works_at', to: 'Acme' });
    await assistant.remember(db.pool, api, { content: 'My accountant is Stefan Huber' });
    await assistant.relate(db.pool, api, { from: 'Stefan Huber', relation: 'lives_in', to: 'Graz' });
    const parent = await assistant.createTask(db.pool, api, { title: 'Taxes' });
    await assistant.createTask(db.pool, api, { title: 'Receipts', parentId: parent.id });
    await assistant.updateUserSettings(db.pool, api, { timeZone: 'Europe/Vienna' });
    // Capture's cursors: a session both have keeps the one further back; the API user's other session moves.
    const cursor = `INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id) VALUES ($1, $2, $3)`;
    await db.pool.query(cursor, [telegram, 'default', 500]);
    await db.pool.query(cursor, [api, 'default', 300]);
    await db.pool.query(cursor, [api, 'work', 400]);

    const linked = await assistant.linkOwnerIdentities(db.pool, { apiUserId: 'owner-b', telegramChatId: '2002' });
    expect(linked).toMatchObject({ userId: telegram, merged: api, identities: ['api:owner-b', 'telegram:2002'] });
    expect((await assistant.resolveIdentity(db.pool, 'api', 'owner-b')).userId).toBe(telegram);
    const memories = await assistant.recall(db.pool, telegram, 'Vienna accountant');
    expect(memories.map((m) => m.content).sort()).toEqual(['I live in Vienna', 'My accountant is Stefan Huber']);
    const graph = await assistant.queryGraph(db.pool, telegram, 'Stefan Huber');
    expect(graph.relations.map((r) => `${r.from} ${r.type} ${r.to}`).sort()).toEqual([
      'Stefan Huber lives_in Graz',
      'Stefan Huber works_at Acme',
    ]);
    const tasks = await assistant.listTasks(db.pool, telegram, { status: 'any' });
    expect(tasks.map((t) => t.title).sort()).toEqual(['Receipts', 'Taxes']);
    expect((await assistant.getUserSettings(db.pool, telegram)).timeZone).toBe('Europe/Vienna');
    expect((await db.pool.query('SELECT 1 FROM assistant.users WHERE id = $1', [api])).rowCount).toBe(0);
    const cursors = await db.pool.query(
      'SELECT session_id, last_turn_id::int AS last FROM assistant.capture_cursors WHERE user_id = $1 ORDER BY 1',
      [telegram],
    );
    expect(cursors.rows).toEqual([
      { session_id: 'default', last: 300 },
      { session_id: 'work', last: 400 },
    ]);
  });

  it('uses the stored owner chat id by default, and says so when there is none', async () => {
    await expectFieldError(() => assistant.linkOwnerIdentities(db.pool, { apiUserId: 'owner-c' }), 'telegramChatId');
    await assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: '3003' });
    expect((await assistant.linkOwnerIdentities(db.pool, { apiUserId: 'owner-c' })).identities).toContain(
      'telegram:3003',
    );
    await expectFieldError(() => assistant.linkOwnerIdentities(db.pool, { apiUserId: '  ' }), 'externalId');
  });
});
