// The assistant's storage and domain on a real Postgres 17: migrations, identities and isolation, memory recall,
// knowledge graph, tasks, turns, context and input validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'pg';
import * as assistant from '../src';
import { AssistantInputError, AssistantNotFoundError } from '../src';
import { createDatabase } from '../../scripts/runtime/postgres';
import { startAssistantDatabase, type TestDatabase } from './database';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await startAssistantDatabase();
  pool = db.pool;
});
afterAll(async () => {
  await db?.stop();
});

async function newUser(name: string): Promise<string> {
  return (await assistant.resolveIdentity(pool, 'api', `${name}-${Math.random().toString(36).slice(2)}`)).userId;
}

/** Asserts that `work` fails with an input (or not-found) error naming `field`. */
async function expectFieldError(work: () => Promise<unknown>, field: string, kind: 'input' | 'notFound' = 'input') {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected an error naming ${field}`).toBeInstanceOf(kind === 'input' ? AssistantInputError : AssistantNotFoundError);
  expect((error as AssistantInputError).field).toBe(field);
  expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
}

describe('migrations', () => {
  it('creates the assistant schema with a version table, and a re-run applies nothing', async () => {
    const tables = await pool.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'assistant' ORDER BY 1`);
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['schema_migrations', 'users', 'identities', 'memories', 'entities', 'relations', 'tasks', 'turns', 'instance_settings', 'user_settings']),
    );
    const again = await assistant.runMigrations(db.server.url);
    expect(again).toEqual({ applied: [], current: assistant.migrations.at(-1)!.version });
    const versions = await pool.query('SELECT version FROM assistant.schema_migrations ORDER BY version');
    expect(versions.rows.map((r) => r.version)).toEqual(assistant.migrations.map((m) => m.version));
  });

  it('is safe to run concurrently on a fresh database: each migration is applied exactly once', async () => {
    await createDatabase(db.server.url, 'concurrent_migrations');
    const url = db.server.url.replace(/\/assistant_test$/, '/concurrent_migrations');
    const results = await Promise.all([1, 2, 3, 4].map(() => assistant.runMigrations(url)));
    const applied = results.flatMap((r) => r.applied).sort();
    expect(applied).toEqual(assistant.migrations.map((m) => m.version));
    expect(results.every((r) => r.current === assistant.migrations.at(-1)!.version)).toBe(true);
  });

  it('rolls a failing migration back entirely and reports it', async () => {
    await createDatabase(db.server.url, 'failing_migration');
    const url = db.server.url.replace(/\/assistant_test$/, '/failing_migration');
    const broken = [...assistant.migrations, { version: 999, name: 'broken', sql: 'CREATE TABLE assistant.half_done (x int); SELECT no_such_function();' }];
    await expect(assistant.runMigrations(url, broken)).rejects.toThrow(/migration 999 \(broken\) failed/);
    const check = new Pool({ connectionString: url, max: 1 });
    check.on('error', () => undefined);
    try {
      const half = await check.query(`SELECT to_regclass('assistant.half_done') AS t`);
      expect(half.rows[0].t).toBeNull();
      const versions = await check.query('SELECT max(version) AS v FROM assistant.schema_migrations');
      expect(versions.rows[0].v).toBe(assistant.migrations.at(-1)!.version);
    } finally {
      await check.end();
    }
  });
});

describe('identities', () => {
  it('resolves the same identity to the same user, and creates it only once under concurrency', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => assistant.resolveIdentity(pool, 'telegram', 424242)));
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results[0].identity).toBe('telegram:424242');
  });

  it('namespaces by channel: an API caller naming a Telegram identity gets a different user', async () => {
    const telegram = await assistant.resolveIdentity(pool, 'telegram', '777');
    const sneaky = await assistant.resolveIdentity(pool, 'api', 'telegram:777');
    const plain = await assistant.resolveIdentity(pool, 'api', '777');
    expect(sneaky.identity).toBe('api:telegram:777');
    expect(new Set([telegram.userId, sneaky.userId, plain.userId]).size).toBe(3);
  });

  it('rejects bad identities, naming the field', async () => {
    await expectFieldError(() => assistant.resolveIdentity(pool, 'telegram', 'abc'), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(pool, 'api', '   '), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(pool, 'api', 'a\u0000b'), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(pool, 'email', 'x@y'), 'channel');
  });

  it('links a second identity to a user, and refuses to steal one', async () => {
    const owner = await assistant.resolveIdentity(pool, 'telegram', '1001');
    await assistant.linkIdentity(pool, owner.userId, 'api', 'owner-laptop');
    expect((await assistant.resolveIdentity(pool, 'api', 'owner-laptop')).userId).toBe(owner.userId);
    const other = await assistant.resolveIdentity(pool, 'api', 'someone-else');
    await expectFieldError(() => assistant.linkIdentity(pool, other.userId, 'telegram', '1001'), 'externalId');
    expect((await assistant.resolveIdentity(pool, 'telegram', '1001')).userId).toBe(owner.userId);
  });
});

describe('settings', () => {
  it('layers user overrides over instance defaults, and validates language and time zone', async () => {
    const userId = await newUser('settings');
    expect(await assistant.getUserSettings(pool, userId)).toMatchObject({ assistantName: 'Assistant', language: 'english', timeZone: 'UTC' });
    const updated = await assistant.updateUserSettings(pool, userId, { assistantName: 'Ada', language: 'German', timeZone: 'Europe/Vienna' });
    expect(updated).toMatchObject({ assistantName: 'Ada', language: 'german', timeZone: 'Europe/Vienna' });
    await expectFieldError(() => assistant.updateUserSettings(pool, userId, { language: 'klingon' }), 'language');
    await expectFieldError(() => assistant.updateUserSettings(pool, userId, { timeZone: 'Mars/Olympus_Mons' }), 'timeZone');
    expect((await assistant.getUserSettings(pool, userId)).language).toBe('german');
  });

  it("stores the owner's Telegram chat id; only that chat is the owner", async () => {
    expect(await assistant.isTelegramOwner(pool, '5550001')).toBe(false);
    await assistant.updateInstanceSettings(pool, { ownerTelegramChatId: '5550001' });
    expect(await assistant.isTelegramOwner(pool, 5550001)).toBe(true);
    expect(await assistant.isTelegramOwner(pool, '5550002')).toBe(false);
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { ownerTelegramChatId: 'me' }), 'ownerTelegramChatId');
    await expectFieldError(() => assistant.isTelegramOwner(pool, '1; DROP TABLE x'), 'chatId');
  });

  it('stores the chat model name (default gpt-4o-mini) and hands it to the context', async () => {
    expect((await assistant.getInstanceSettings(pool)).chatModel).toBe('gpt-4o-mini');
    await assistant.updateInstanceSettings(pool, { chatModel: ' qwen2.5:7b-instruct ' });
    expect((await assistant.getInstanceSettings(pool)).chatModel).toBe('qwen2.5:7b-instruct');
    const userId = await newUser('chat-model');
    expect((await assistant.loadContext(pool, userId, {})).chatModel).toBe('qwen2.5:7b-instruct');
    expect(await assistant.getUserSettings(pool, userId)).not.toHaveProperty('chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 'gpt 4o' }), 'chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 42 }), 'chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 'x'.repeat(201) }), 'chatModel');
    // The column refuses what the check refuses, even when written directly.
    await expect(pool.query("UPDATE assistant.instance_settings SET chat_model = 'a b'")).rejects.toThrow(/check constraint/);
    await assistant.updateInstanceSettings(pool, { chatModel: 'gpt-4o-mini' });
  });
});

describe('memory', () => {
  it('finds a person by first name ("Stefan" → "Stefan Huber")', async () => {
    const userId = await newUser('stefan');
    await assistant.remember(pool, userId, { content: 'Stefan Huber is my climbing partner from Graz', people: ['Stefan Huber'], kind: 'person' });
    await assistant.remember(pool, userId, { content: 'The boiler needs a service in October' });
    const found = await assistant.recall(pool, userId, 'Stefan');
    expect(found.map((m) => m.content)).toEqual(['Stefan Huber is my climbing partner from Graz']);
  });

  it('matches misspelt names by trigram similarity where full text finds nothing', async () => {
    const userId = await newUser('trigram');
    await assistant.remember(pool, userId, { content: 'Met him at the gym on Tuesday', people: ['Arnold Schwarzenegger'] });
    const tsquery = await assistant.orQuery(pool, 'english', 'Schwarzeneger');
    const fullText = await pool.query(`SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1 AND search_vector @@ $2::tsquery`, [userId, tsquery]);
    expect(fullText.rows[0].n).toBe(0);
    const found = await assistant.recall(pool, userId, 'Schwarzeneger');
    expect(found).toHaveLength(1);
    expect(found[0].people).toEqual(['Arnold Schwarzenegger']);
  });

  it('searches with OR semantics and stemming in the configured language', async () => {
    const userId = await newUser('stemming');
    await assistant.remember(pool, userId, { content: 'I love pizza with anchovies' });
    await assistant.remember(pool, userId, { content: 'She runs marathons every spring' });
    await assistant.remember(pool, userId, { content: 'The car is blue' });
    const either = await assistant.recall(pool, userId, 'pizza or running?');
    expect(either.map((m) => m.content).sort()).toEqual(['I love pizza with anchovies', 'She runs marathons every spring']);
    await assistant.updateUserSettings(pool, userId, { language: 'german' });
    await assistant.remember(pool, userId, { content: 'Wir haben die Häuser in Wien besichtigt' });
    const german = await assistant.recall(pool, userId, 'Haus');
    expect(german.map((m) => m.content)).toEqual(['Wir haben die Häuser in Wien besichtigt']);
  });

  it('ranks by relevance, importance and recency', async () => {
    const userId = await newUser('ranking');
    const old = await assistant.remember(pool, userId, { content: 'Project Falcon deadline is in March' });
    const recent = await assistant.remember(pool, userId, { content: 'Project Falcon deadline moved to May' });
    const vague = await assistant.remember(pool, userId, { content: 'Falcon is also a bird' , importance: 1 });
    await pool.query(`UPDATE assistant.memories SET created_at = now() - interval '200 days' WHERE id = $1`, [old.id]);
    const ranked = await assistant.recall(pool, userId, 'Falcon project deadline');
    expect(ranked.map((m) => m.id)).toEqual([recent.id, old.id, vague.id]);
    expect(ranked[0].score).toBeGreaterThan(ranked[1].score);
    const important = await assistant.remember(pool, userId, { content: 'Falcon is also a bird of prey', importance: 5 });
    const birds = await assistant.recall(pool, userId, 'bird', { limit: 2 });
    expect(birds.map((m) => m.id)).toEqual([important.id, vague.id]);
  });

  it('updates and forgets a memory, recomputing what search sees', async () => {
    const userId = await newUser('update');
    const memory = await assistant.remember(pool, userId, { content: 'My dentist is Dr. Berger', tags: 'health, appointments' });
    expect(memory.tags).toEqual(['health', 'appointments']);
    const updated = await assistant.updateMemory(pool, userId, memory.id, { content: 'My dentist is Dr. Novak', people: ['Dr. Novak'] });
    expect(updated.content).toBe('My dentist is Dr. Novak');
    expect(updated.tags).toEqual(['health', 'appointments']);
    expect(await assistant.recall(pool, userId, 'Berger')).toEqual([]);
    expect((await assistant.recall(pool, userId, 'Novak')).map((m) => m.id)).toEqual([memory.id]);
    const forgotten = await assistant.forgetMemory(pool, userId, memory.id);
    expect(forgotten.id).toBe(memory.id);
    await expectFieldError(() => assistant.getMemory(pool, userId, memory.id), 'memoryId', 'notFound');
  });

  it('keeps users apart: no reading, changing or forgetting another user\'s memory', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const secret = await assistant.remember(pool, alice, { content: "Alice's safe code is 4711", people: ['Alice'] });
    expect(await assistant.recall(pool, bob, 'safe code 4711 Alice')).toEqual([]);
    await expectFieldError(() => assistant.getMemory(pool, bob, secret.id), 'memoryId', 'notFound');
    await expectFieldError(() => assistant.updateMemory(pool, bob, secret.id, { content: 'hacked' }), 'memoryId', 'notFound');
    await expectFieldError(() => assistant.forgetMemory(pool, bob, secret.id), 'memoryId', 'notFound');
    expect((await assistant.getMemory(pool, alice, secret.id)).content).toBe("Alice's safe code is 4711");
  });

  it('rejects bad memory input, naming the field', async () => {
    const userId = await newUser('bad-memory');
    await expectFieldError(() => assistant.remember(pool, 'not-a-uuid', { content: 'x' }), 'userId');
    await expectFieldError(() => assistant.remember(pool, '00000000-0000-4000-8000-000000000000', { content: 'x' }), 'userId');
    await expectFieldError(() => assistant.remember(pool, userId, { content: '   ' }), 'content');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', importance: 9 }), 'importance');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', kind: 'gossip' }), 'kind');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', tags: [1, 2] }), 'tags');
    await expectFieldError(() => assistant.recall(pool, userId, ''), 'query');
    await expectFieldError(() => assistant.recall(pool, userId, 'x', { limit: 0 }), 'limit');
    await expectFieldError(() => assistant.forgetMemory(pool, userId, 'one'), 'memoryId');
  });
});

describe('knowledge graph', () => {
  it('keeps entities unique per user by normalised name, and per user only', async () => {
    const userId = await newUser('entities');
    const first = await assistant.upsertEntity(pool, userId, { name: 'Acme  GmbH', type: 'company' });
    const again = await assistant.upsertEntity(pool, userId, { name: ' acme gmbh ', summary: 'Makes anvils' });
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ name: 'Acme GmbH', type: 'company', summary: 'Makes anvils', created: false });
    const other = await assistant.upsertEntity(pool, await newUser('entities-2'), { name: 'Acme GmbH' });
    expect(other.id).not.toBe(first.id);
    await expectFieldError(() => assistant.upsertEntity(pool, userId, { name: 'X', type: 'alien' }), 'type');
  });

  it("returns an entity's neighbourhood to depth 2 with the memories that mention it", async () => {
    const userId = await newUser('graph');
    await assistant.upsertEntity(pool, userId, { name: 'Stefan Huber', type: 'person', summary: 'Climbing partner' });
    await assistant.relate(pool, userId, { from: 'Stefan Huber', relation: 'works at', to: 'Acme' });
    await assistant.relate(pool, userId, { from: 'Acme', relation: 'based_in', to: 'Vienna' });
    await assistant.relate(pool, userId, { from: 'Vienna', relation: 'capital_of', to: 'Austria' });
    await assistant.relate(pool, userId, { from: 'Maria', relation: 'married_to', to: 'Stefan Huber' });
    await assistant.relate(pool, userId, { from: 'Stefan Huber', relation: 'worked_at', to: 'OldCorp', validTo: '2020-01-01T00:00:00Z' });
    await assistant.remember(pool, userId, { content: 'Stefan Huber recommended the new crag', people: ['Stefan Huber'] });
    await assistant.remember(pool, userId, { content: 'Had coffee with Stefan Huber yesterday' });
    await assistant.remember(pool, userId, { content: 'Acme ships anvils' });

    const result = await assistant.queryGraph(pool, userId, 'Stefan');
    expect(result.entity).toMatchObject({ name: 'Stefan Huber', type: 'person', summary: 'Climbing partner' });
    expect(result.neighbours.map((n) => [n.name, n.depth])).toEqual([
      ['Acme', 1],
      ['Maria', 1],
      ['Vienna', 2],
    ]);
    expect(result.relations.map((r) => `${r.from} ${r.type} ${r.to}`).sort()).toEqual(['Acme based_in Vienna', 'Maria married_to Stefan Huber', 'Stefan Huber works_at Acme']);
    expect(result.memories.map((m) => m.content).sort()).toEqual(['Had coffee with Stefan Huber yesterday', 'Stefan Huber recommended the new crag']);

    const shallow = await assistant.queryGraph(pool, userId, 'Stefan Huber', { depth: 1, includeEnded: true });
    expect(shallow.neighbours.map((n) => n.name).sort()).toEqual(['Acme', 'Maria', 'OldCorp']);
  });

  it('reuses an identical relation, ends relations, and validates times', async () => {
    const userId = await newUser('relations');
    const first = await assistant.relate(pool, userId, { from: 'Ann', relation: 'manages', to: 'Ben' });
    const second = await assistant.relate(pool, userId, { from: 'ann', relation: 'Manages', to: 'BEN' });
    expect(second).toMatchObject({ id: first.id, created: false });
    const ended = await assistant.endRelation(pool, userId, first.id);
    expect(ended.validTo).not.toBeNull();
    expect((await assistant.queryGraph(pool, userId, 'Ann')).neighbours).toEqual([]);
    await expectFieldError(() => assistant.relate(pool, userId, { from: 'A', relation: 'x', to: 'B', validFrom: '2024-02-01T00:00:00Z', validTo: '2024-01-01T00:00:00Z' }), 'validTo');
    await expectFieldError(() => assistant.relate(pool, userId, { from: 'A', relation: 'x', to: 'B', validFrom: 'last week' }), 'validFrom');
    await expectFieldError(() => assistant.relate(pool, userId, { from: 'A', relation: 'drop;table', to: 'B' }), 'relation');
    await expectFieldError(() => assistant.queryGraph(pool, userId, 'Nobody At All'), 'name', 'notFound');
    await expectFieldError(() => assistant.queryGraph(pool, userId, 'Ann', { depth: 3 }), 'depth');
    const stranger = await newUser('stranger');
    await expectFieldError(() => assistant.endRelation(pool, stranger, first.id), 'relationId', 'notFound');
  });
});

describe('tasks', () => {
  it('creates, lists, updates, completes and deletes', async () => {
    const userId = await newUser('tasks');
    const task = await assistant.createTask(pool, userId, { title: 'File taxes', priority: 'high', dueAt: '2030-04-30T22:00:00Z', tags: ['admin'] });
    expect(task).toMatchObject({ title: 'File taxes', status: 'open', priority: 'high', dueAt: '2030-04-30T22:00:00.000Z', overdue: false, tags: ['admin'] });
    const sub = await assistant.createTask(pool, userId, { title: 'Collect receipts', parentId: task.id });
    expect(sub.parentId).toBe(task.id);
    expect((await assistant.listTasks(pool, userId, { parentId: task.id })).map((t) => t.id)).toEqual([sub.id]);
    const updated = await assistant.updateTask(pool, userId, task.id, { priority: 'urgent', notes: 'Use the new form', dueAt: null });
    expect(updated).toMatchObject({ priority: 'urgent', notes: 'Use the new form', dueAt: null });
    const done = await assistant.completeTask(pool, userId, sub.id);
    expect(done.status).toBe('done');
    expect(done.completedAt).not.toBeNull();
    expect((await assistant.listTasks(pool, userId)).map((t) => t.id)).toEqual([task.id]);
    expect((await assistant.listTasks(pool, userId, { status: 'done' })).map((t) => t.id)).toEqual([sub.id]);
    await expectFieldError(() => assistant.deleteTask(pool, userId, task.id), 'taskId');
    expect(await assistant.deleteTask(pool, userId, task.id, true)).toEqual({ deleted: expect.arrayContaining([task.id, sub.id]) });
    expect(await assistant.listTasks(pool, userId, { status: 'any' })).toEqual([]);
  });

  it('derives "overdue" and "due today" in the user\'s time zone', async () => {
    const userId = await newUser('due');
    const asOf = new Date('2026-03-10T23:30:00Z');
    const morning = await assistant.createTask(pool, userId, { title: 'Tomorrow morning (UTC)', dueAt: '2026-03-11T08:00:00Z' });
    const evening = await assistant.createTask(pool, userId, { title: 'This evening (UTC)', dueAt: '2026-03-10T20:00:00Z', priority: 'urgent' });
    const doneLate = await assistant.createTask(pool, userId, { title: 'Done but late', dueAt: '2026-03-01T08:00:00Z', status: 'done' });
    await assistant.createTask(pool, userId, { title: 'No due time' });
    const ids = (tasks: assistant.Task[]) => tasks.map((t) => t.id);

    expect(ids(await assistant.listTasks(pool, userId, { overdue: true, asOf }))).toEqual([evening.id]);
    expect(ids(await assistant.listTasks(pool, userId, { dueToday: true, asOf }))).toEqual([evening.id]);
    expect(ids(await assistant.listTasks(pool, userId, { dueToday: true, asOf, timeZone: 'Europe/Vienna' }))).toEqual([morning.id]);
    expect(ids(await assistant.listTasks(pool, userId, { dueToday: true, asOf, timeZone: 'America/Los_Angeles' }))).toEqual([evening.id]);
    await assistant.updateUserSettings(pool, userId, { timeZone: 'Asia/Tokyo' });
    // 08:30 on 11 March in Tokyo: both the "evening" (05:00 local) and "morning" (17:00 local) tasks are due today.
    expect(ids(await assistant.listTasks(pool, userId, { dueToday: true, asOf }))).toEqual([evening.id, morning.id]);
    expect(ids(await assistant.listTasks(pool, userId, { priority: 'urgent', asOf }))).toEqual([evening.id]);
    const all = await assistant.listTasks(pool, userId, { status: 'any', asOf });
    expect(all.find((t) => t.id === doneLate.id)?.overdue).toBe(false);
    expect(all.find((t) => t.id === evening.id)?.overdue).toBe(true);
    const columns = await pool.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'assistant' AND table_name = 'tasks'`);
    expect(columns.rows.map((r) => r.column_name)).not.toContain('overdue');
  });

  it('keeps tasks per user and rejects bad input, naming the field', async () => {
    const alice = await newUser('task-alice');
    const bob = await newUser('task-bob');
    const task = await assistant.createTask(pool, alice, { title: 'Private' });
    await expectFieldError(() => assistant.getTask(pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.completeTask(pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.deleteTask(pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.createTask(pool, bob, { title: 'Sub', parentId: task.id }), 'parentId');
    expect(await assistant.listTasks(pool, bob, { status: 'any' })).toEqual([]);
    await expectFieldError(() => assistant.createTask(pool, alice, { title: '' }), 'title');
    await expectFieldError(() => assistant.createTask(pool, alice, { title: 'x', priority: 'asap' }), 'priority');
    await expectFieldError(() => assistant.createTask(pool, alice, { title: 'x', dueAt: 'tomorrow' }), 'dueAt');
    await expectFieldError(() => assistant.listTasks(pool, alice, { status: 'later' }), 'status');
    await expectFieldError(() => assistant.listTasks(pool, alice, { overdue: 'yes' }), 'overdue');
    await expectFieldError(() => assistant.listTasks(pool, alice, { dueToday: true, timeZone: 'Nowhere/Town' }), 'timeZone');
    await expectFieldError(() => assistant.updateTask(pool, alice, task.id, { parentId: task.id }), 'parentId');
    const child = await assistant.createTask(pool, alice, { title: 'Child', parentId: task.id });
    await expectFieldError(() => assistant.updateTask(pool, alice, task.id, { parentId: child.id }), 'parentId');
  });
});

describe('conversation turns and context', () => {
  it('stores messages verbatim: quotes, $1, emoji, SQL, 100 kB', async () => {
    const userId = await newUser('verbatim');
    const tricky = `He said "it's fine" — costs $1 (or $2.50)… 😀🇦🇹 \\n'; DROP TABLE assistant.turns; --\n\ttab`;
    const big = 'x'.repeat(50_000) + '🙂'.repeat(12_500) + 'end';
    expect(Buffer.byteLength(big)).toBeGreaterThanOrEqual(100_000);
    await assistant.storeTurn(pool, userId, { sessionId: 's1', userMessage: tricky, assistantReply: big, metadata: { note: '$1 "q"' } });
    const rows = await pool.query('SELECT role, content, metadata FROM assistant.turns WHERE user_id = $1 ORDER BY id', [userId]);
    expect(rows.rows.map((r) => r.content)).toEqual([tricky, big]);
    expect(rows.rows[0].metadata).toEqual({ note: '$1 "q"' });
    const messages = await assistant.recentMessages(pool, userId, 's1', 1_000_000);
    expect(messages).toEqual([
      { role: 'user', content: tricky },
      { role: 'assistant', content: big },
    ]);
  });

  it('loads the newest turns of the session that fit the token budget, oldest first', async () => {
    const userId = await newUser('budget');
    for (let i = 1; i <= 5; i++) {
      await assistant.storeTurn(pool, userId, { sessionId: 'a', userMessage: `question ${i} ${'w'.repeat(36)}`, assistantReply: `answer ${i} ${'w'.repeat(38)}` });
    }
    await assistant.storeTurn(pool, userId, { sessionId: 'b', userMessage: 'other session' });
    const perMessage = assistant.estimateTokens(`question 1 ${'w'.repeat(36)}`);
    const recent = await assistant.recentMessages(pool, userId, 'a', perMessage * 4);
    expect(recent.map((m) => m.content.split(' ').slice(0, 2).join(' '))).toEqual(['question 4', 'answer 4', 'question 5', 'answer 5']);
    expect(await assistant.recentMessages(pool, userId, 'a', 0)).toEqual([]);
    expect((await assistant.recentMessages(pool, userId, 'b')).map((m) => m.content)).toEqual(['other session']);
    const stranger = await newUser('stranger');
    expect(await assistant.recentMessages(pool, stranger, 'a')).toEqual([]);
  });

  it('loads the context: settings, local time, recent messages, relevant memories, system prompt', async () => {
    const userId = await newUser('context');
    await assistant.updateUserSettings(pool, userId, { assistantName: 'Jarvis', timeZone: 'Europe/Vienna', style: 'Dry humour.' });
    await assistant.remember(pool, userId, { content: 'Stefan Huber prefers tea over coffee', people: ['Stefan Huber'] });
    await assistant.storeTurn(pool, userId, { sessionId: 'chat', userMessage: 'Hello', assistantReply: 'Hi!' });
    const context = await assistant.loadContext(pool, userId, { sessionId: 'chat', message: 'What does Stefan drink?', now: new Date('2026-07-01T10:00:00Z') });
    expect(context.settings).toMatchObject({ assistantName: 'Jarvis', timeZone: 'Europe/Vienna' });
    expect(context.localTime).toBe('Wednesday 2026-07-01 12:00 (Europe/Vienna)');
    expect(context.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi!' },
    ]);
    expect(context.memories.map((m) => m.content)).toEqual(['Stefan Huber prefers tea over coffee']);
    expect(context.systemPrompt).toContain('You are Jarvis');
    expect(context.systemPrompt).toContain('Stefan Huber prefers tea over coffee');
  });

  it('rejects bad turns, naming the field', async () => {
    const userId = await newUser('bad-turns');
    await expectFieldError(() => assistant.storeTurn(pool, userId, { userMessage: '' }), 'userMessage');
    await expectFieldError(() => assistant.storeTurn(pool, userId, { userMessage: 'hi', sessionId: 'x'.repeat(201) }), 'sessionId');
    await expectFieldError(() => assistant.storeTurn(pool, userId, { userMessage: 'hi', metadata: [1] }), 'metadata');
    await expectFieldError(() => assistant.loadContext(pool, userId, { tokenBudget: -1 }), 'tokenBudget');
  });
});

describe('scripts/migrate.ts', () => {
  it('runs as a CLI against --url, idempotently, and refuses a bad URL naming the flag', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = promisify(execFile);
    const tsx = 'node_modules/.bin/tsx';
    await createDatabase(db.server.url, 'cli_migrations');
    const url = db.server.url.replace(/\/assistant_test$/, '/cli_migrations');
    const first = await run(tsx, ['scripts/migrate.ts', '--url', url]);
    expect(first.stdout).toMatch(/assistant schema migrated to version \d+ \(applied 1/);
    const second = await run(tsx, ['scripts/migrate.ts'], { env: { ...process.env, ASSISTANT_DATABASE_URL: url } });
    expect(second.stdout).toMatch(/assistant schema is up to date/);
    const bad = await run(tsx, ['scripts/migrate.ts', '--url', 'mysql://nope']).catch((e: { stderr: string; code: number }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/--url: expected a postgres:\/\/ connection URL/);
  });
});
