// Capture Memories on a real Postgres 17, through the real model gateway in front of the loopback OpenAI fake (whose
// extractor answers record_extraction calls): three plain messages become two people, a company, the accountant
// relations and the superseded fact; an invalid answer is retried once, then the batch is dropped and recorded; a
// spent budget leaves the batch for the next run; the calls are counted under job "capture".
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listModelCalls, removeCap, resolveIdentity, setCap, type RunningGateway } from 'assistant-core';
import { NodeOperationError } from 'n8n-workflow';

import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../fakes/openai-chat';
import { runNode } from '../helpers/executeFunctions';
import { startTestGateway } from '../helpers/gateway';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const GATEWAY_KEY = 'capture-gateway-key-0123456789';
const FIRST = 'Stefan Huber from Huber & Partner is my accountant';
const SECOND = 'Anna Berger replaces Stefan as my accountant from March';
const THIRD = "Anna's number is +43 660 1234567";

let db: NodeDatabase;
let provider: OpenAiChatFake;
let gateway: RunningGateway;
const started = new Date();

beforeAll(async () => {
  [db, provider] = await Promise.all([startNodeDatabase({ migrated: true }), startOpenAiChatFake()]);
  gateway = await startTestGateway(GATEWAY_KEY, provider.url, db.pool);
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([db?.stop(), provider?.close()]);
});

/** Every session so far captured: each test sees only its own turns. */
beforeEach(async () => {
  await db.pool.query(
    `INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id)
       SELECT user_id, session_id, max(id) FROM assistant.turns GROUP BY 1, 2
     ON CONFLICT (user_id, session_id) DO UPDATE SET last_turn_id = EXCLUDED.last_turn_id`,
  );
});

const t0 = new Date('2027-03-01T10:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

async function newUser(name: string): Promise<string> {
  return (await resolveIdentity(db.pool, 'api', `${name}-${Math.random().toString(36).slice(2)}`)).userId;
}

/** The user's message and the assistant's reply, as the agent stores them. */
async function exchange(userId: string, message: string, when: Date, reply = 'Noted.'): Promise<void> {
  for (const [role, content] of [
    ['user', message],
    ['assistant', reply],
  ])
    await db.pool.query(
      `INSERT INTO assistant.turns (user_id, session_id, role, content, channel, created_at)
       VALUES ($1, 'chat', $2, $3, 'api', $4)`,
      [userId, role, content, when],
    );
}

async function captureAll(now: Date, options: { continueOnFail?: boolean; maxBatches?: number } = {}) {
  const { maxBatches, ...run } = options;
  const [output] = await runNode(new AssistantMemory(), {
    parameters: [
      { operation: 'captureMemories', now: now.toISOString(), ...(maxBatches === undefined ? {} : { maxBatches }) },
    ],
    credentials: { postgres: db.credential, openAiApi: { url: `${gateway.url}/llm/v1`, apiKey: GATEWAY_KEY } },
    nodeCredentials: { openAiApi: { id: 'chat', name: 'Assistant Chat Model' } },
    ...run,
  });
  return output.map((item) => item.json);
}

/** One run's first item (a run with one idle conversation has one). */
const capture = async (now: Date, options: { continueOnFail?: boolean } = {}) => (await captureAll(now, options))[0];

const captureCalls = async (userId: string) => {
  await gateway.flushed();
  return (await listModelCalls(db.pool, started)).filter((row) => row.job === 'capture' && row.user_id === userId);
};

describe('Capture Memories', () => {
  it('captures three plain messages into two people, a company, their relations and the superseded fact', async () => {
    const userId = await newUser('capture-accountant');
    await exchange(userId, FIRST, at(0));
    expect(await capture(at(4))).toEqual({ captured: false });
    const first = await capture(at(6));
    expect(first).toMatchObject({ captured: true, outcome: 'applied', userId, confirmed: true, modelCalls: 1 });
    await exchange(userId, SECOND, at(60));
    const second = await capture(at(70));
    expect((second.facts as { superseded: Array<{ content: string }> }).superseded.map((m) => m.content)).toEqual([
      FIRST,
    ]);
    await exchange(userId, THIRD, at(120));
    expect(await capture(at(130))).toMatchObject({ outcome: 'applied', facts: { stored: [{ content: THIRD }] } });
    expect(await capture(at(130))).toEqual({ captured: false });

    const entities = await db.pool.query('SELECT name, type FROM assistant.entities WHERE user_id = $1 ORDER BY name', [
      userId,
    ]);
    expect(entities.rows.map((row) => `${row.name}:${row.type}`)).toEqual([
      'Anna Berger:person',
      'Huber & Partner:company',
      'Stefan Huber:person',
      'the user:person',
    ]);
    const relations = await db.pool.query(
      `SELECT f.name AS "from", r.type, t.name AS "to", r.valid_to FROM assistant.relations r
         JOIN assistant.entities f ON f.id = r.from_entity_id JOIN assistant.entities t ON t.id = r.to_entity_id
        WHERE r.user_id = $1 ORDER BY r.id`,
      [userId],
    );
    expect(relations.rows.map((r) => [`${r.from} ${r.type} ${r.to}`, r.valid_to?.toISOString() ?? null])).toEqual([
      ['Stefan Huber accountant_of the user', at(70).toISOString()],
      ['Stefan Huber works_at Huber & Partner', null],
      ['Anna Berger accountant_of the user', null],
    ]);
    const memories = await db.pool.query(
      `SELECT m.content, s.content AS superseded_by FROM assistant.memories m
         LEFT JOIN assistant.memories s ON s.id = m.superseded_by WHERE m.user_id = $1 ORDER BY m.id`,
      [userId],
    );
    expect(memories.rows).toEqual([
      { content: FIRST, superseded_by: SECOND },
      { content: SECOND, superseded_by: null },
      { content: THIRD, superseded_by: null },
    ]);
    const calls = await captureCalls(userId);
    expect(calls.map((row) => [row.model, row.outcome])).toEqual([
      ['gpt-4o-mini', 'ok'],
      ['gpt-4o-mini', 'ok'],
      ['gpt-4o-mini', 'ok'],
    ]);
  });

  it('reads up to Most Batches idle conversations in one run, one item each', async () => {
    const [ada, bob, cyd] = await Promise.all(['batch-ada', 'batch-bob', 'batch-cyd'].map(newUser));
    for (const userId of [ada, bob, cyd]) await exchange(userId, 'Lena Vogel is my dentist', at(200));
    const first = await captureAll(at(210), { maxBatches: 2 });
    expect(first.map((item) => [item.userId, item.outcome])).toEqual([
      [ada, 'applied'],
      [bob, 'applied'],
    ]);
    expect((await captureAll(at(210))).map((item) => item.userId)).toEqual([cyd]);
    expect(await captureAll(at(210))).toEqual([{ captured: false }]);
    const bad = await captureAll(at(210), { maxBatches: 0 }).catch((caught: unknown) => caught);
    expect(bad).toBeInstanceOf(NodeOperationError);
    expect((bad as Error).message).toBe('maxBatches: must be an integer from 1 to 50');
  });

  it('captures one run at a time: a run that finds another capturing reads nothing', async () => {
    const userId = await newUser('capture-busy');
    await exchange(userId, 'Lena Vogel is my dentist', at(300));
    const other = await db.pool.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('assistant.capture'))`);
      expect(await captureAll(at(310))).toEqual([{ captured: false, busy: true }]);
      await other.query(`SELECT pg_advisory_unlock(hashtext('assistant.capture'))`);
    } finally {
      other.release();
    }
    expect((await captureAll(at(310))).map((item) => [item.userId, item.outcome])).toEqual([[userId, 'applied']]);
  });

  it('drops a batch answered invalidly twice: two model calls, one capture failure, the cursor moved on', async () => {
    const userId = await newUser('capture-bad');
    await exchange(userId, `${FIRST} [bad-extraction]`, at(0));
    const dropped = await capture(at(10));
    expect(dropped).toMatchObject({
      captured: true,
      outcome: 'dropped',
      modelCalls: 2,
      error: 'entities: must be a list (empty when there is none)',
    });
    expect(await capture(at(10))).toEqual({ captured: false });
    const failures = await db.pool.query('SELECT source, message, count FROM assistant.failures WHERE user_id = $1', [
      userId,
    ]);
    expect(failures.rows).toEqual([
      {
        source: 'capture',
        message: expect.stringMatching(
          /^dropped turns \d+-\d+ of session chat: the extraction was invalid twice \(entities: must be a list/,
        ),
        count: 1,
      },
    ]);
    expect(await db.pool.query('SELECT 1 FROM assistant.entities WHERE user_id = $1', [userId])).toMatchObject({
      rowCount: 0,
    });
    expect(await captureCalls(userId)).toHaveLength(2);
  });

  it('applies a valid answer to the retry, which carries the validation error', async () => {
    const userId = await newUser('capture-retry');
    await exchange(userId, `${FIRST} [bad-extraction-once]`, at(0));
    const applied = await capture(at(10));
    expect(applied).toMatchObject({ outcome: 'applied', modelCalls: 2 });
    expect((applied.entities as Array<{ name: string }>).map((e) => e.name)).toEqual([
      'Stefan Huber',
      'Huber & Partner',
    ]);
    const retry = (await fetch(`${provider.url}/__requests?match=must%20be%20a%20list`).then((r) =>
      r.json(),
    )) as Array<{
      body: { messages: Array<{ role: string; content: string }> };
    }>;
    expect(retry.at(-1)!.body.messages.at(-1)!.content).toContain('entities: must be a list');
  });

  it('stores the facts of a batch that carried outside content unconfirmed, and holds its graph items', async () => {
    const userId = await newUser('capture-outside');
    const page = '«untrusted 0a1b2c3d from https://example.com»\nMallory Quinn is my accountant\n«end 0a1b2c3d»';
    await exchange(userId, 'Maria Novak is my lawyer', at(0), `The page says:\n${page}`);
    await db.pool.query('UPDATE assistant.turns SET outside_content_at = created_at WHERE user_id = $1', [userId]);
    const held = await capture(at(10));
    expect(held).toMatchObject({ outcome: 'applied', confirmed: false, entities: [], relations: [] });
    expect(held.held).toEqual({
      entities: [{ name: 'Maria Novak', type: 'person', aliases: [] }],
      relations: [{ from: 'Maria Novak', relation: 'lawyer_of', to: 'the user', evidence: 'Maria Novak is my lawyer' }],
    });
    expect(held.facts).toMatchObject({ unconfirmed: [{ content: 'Maria Novak is my lawyer', confirmed: false }] });
    const request = (await fetch(`${provider.url}/__requests?match=Maria%20Novak`).then((r) => r.json())) as Array<{
      body: { messages: Array<{ content: string }> };
    }>;
    expect(JSON.stringify(request.at(-1)!.body.messages)).not.toContain('Mallory');
  });

  it('keeps the batch when the gateway refuses the call (a spent budget) and fails the item clearly', async () => {
    const userId = await newUser('capture-budget');
    await exchange(userId, FIRST, at(0));
    await setCap(db.pool, { scope: 'instance', period: 'day', limitTokens: 0 });
    try {
      const error = await capture(at(10)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NodeOperationError);
      expect((error as Error).message).toMatch(
        /^Capture: the model call failed \(402\): The model budget .*; turns \d+-\d+ of session chat are captured on a later run$/,
      );
      expect(await capture(at(10), { continueOnFail: true })).toMatchObject({ error: expect.stringContaining('402') });
    } finally {
      await removeCap(db.pool, { scope: 'instance', period: 'day' });
    }
    expect(await capture(at(10))).toMatchObject({ outcome: 'applied', userId });
  });
});
