// Consolidate Memories and the memory panel's operations on a real Postgres 17, through the real model gateway in
// front of the loopback OpenAI fake (whose echo is the summary): the users due in their quiet hours are consolidated,
// an item each, the summaries' calls counted under job "consolidation" (the entity summaries' too); a spent budget
// fails the user's item and leaves their memories (and entity summaries) as they were; Pin Memory, Restore Memory,
// Consolidation Report and List Kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consolidateMemories,
  entitySummaryRequest,
  findEntity,
  listModelCalls,
  remember,
  removeCap,
  resolveIdentity,
  setCap,
  updateInstanceSettings,
  upsertEntity,
  updateUserPreferences,
  type RunningGateway,
} from 'assistant-core';

import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../fakes/openai-chat';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startTestGateway } from '../helpers/gateway';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const GATEWAY_KEY = 'consolidate-gateway-key-0123456789';

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

// 03:00 UTC: inside the default consolidation hours (02:00-05:00) of a user on UTC without quiet hours.
const night = new Date('2027-06-01T03:00:00Z');
const daysBefore = (at: Date, days: number) => new Date(at.getTime() - days * 86_400_000);

async function newUser(name: string): Promise<string> {
  return (await resolveIdentity(db.pool, 'api', `${name}-${Math.random().toString(36).slice(2)}`)).userId;
}

async function stored(userId: string, content: string, createdAt: Date, people: string[] = []) {
  const memory = await remember(db.pool, userId, { content, people });
  await db.pool.query('UPDATE assistant.memories SET created_at = $2 WHERE id = $1', [memory.id, createdAt]);
  return memory;
}

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantMemory(), {
    parameters,
    credentials: { postgres: db.credential, openAiApi: { url: `${gateway.url}/llm/v1`, apiKey: GATEWAY_KEY } },
    nodeCredentials: { openAiApi: { id: 'chat', name: 'Assistant Chat Model' } },
    ...options,
  });
  return output.map((item) => item.json);
}

const consolidate = (now: Date, extra: Parameters = {}, options: { continueOnFail?: boolean } = {}) =>
  run([{ operation: 'consolidateMemories', now: now.toISOString(), ...extra }], options);

const liveCount = async (userId: string) =>
  Number(
    (
      await db.pool.query(
        'SELECT count(*) FROM assistant.memories WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL',
        [userId],
      )
    ).rows[0].count,
  );

describe('Consolidate Memories', () => {
  // The instance's memory budget (a setting; 0 turns the nightly pass off).
  beforeAll(() => updateInstanceSettings(db.pool, { memoryBudget: 3 }));
  afterAll(() => updateInstanceSettings(db.pool, { memoryBudget: 2000 }));

  it('consolidates the users due in their quiet hours, the summaries written by the model through the gateway', async () => {
    const userId = await newUser('consolidate-due');
    const awake = await newUser('consolidate-awake');
    await updateUserPreferences(db.pool, awake, { timeZone: 'Asia/Tokyo' });
    await stored(awake, 'Tokyo note', daysBefore(night, 90));
    await stored(userId, 'I like green tea in the morning', daysBefore(night, 95));
    await stored(userId, 'In the morning I like green tea', daysBefore(night, 94));
    for (let i = 0; i < 5; i++) await stored(userId, `Old parking spot ${i} on level ${i}`, daysBefore(night, 90 - i));

    const items = await consolidate(night);
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item).toMatchObject({ consolidated: true, userId, liveBefore: 7, liveAfter: 3, budget: 3, modelCalls: 1 });
    expect((item.merged as unknown[]).length).toBe(1);
    const folded = item.folded as Array<{ ids: number[]; content: string; into: number }>;
    expect(folded.map((entry) => entry.ids.length)).toEqual([4]);
    expect(folded[0].content).toMatch(/^echo: The notes, oldest first:/);
    expect(await liveCount(userId)).toBe(3);

    await gateway.flushed();
    const calls = (await listModelCalls(db.pool, started)).filter(
      (row) => row.job === 'consolidation' && row.user_id === userId,
    );
    expect(calls).toHaveLength(1);
    // Consolidated within 20 hours: not due again; the Tokyo user is not in their quiet hours.
    expect(await consolidate(night)).toEqual([{ consolidated: false }]);
  });

  it('fails the item of a user when the gateway refuses the call (a spent budget), their memories as they were', async () => {
    const later = new Date(night.getTime() + 3 * 86_400_000);
    const userId = await newUser('consolidate-budget');
    for (let i = 0; i < 5; i++) await stored(userId, `Old receipt ${i} from shop ${i}`, daysBefore(later, 90 - i));
    await setCap(db.pool, { scope: 'instance', period: 'day', limitTokens: 0 });
    try {
      const [item] = await consolidate(later, { maxUsers: 1 });
      expect(item).toMatchObject({ consolidated: false, userId, modelCalls: 1, status: 402 });
      expect(item.error).toMatch(
        new RegExp(
          `^Consolidation: the model call failed \\(402\\): .*; the memories of user ${userId} are as they were$`,
        ),
      );
      expect(await liveCount(userId)).toBe(5);
      const runs = await db.pool.query('SELECT 1 FROM assistant.consolidation_runs WHERE user_id = $1', [userId]);
      expect(runs.rowCount).toBe(0);
    } finally {
      await removeCap(db.pool, { scope: 'instance', period: 'day' });
    }
    expect(await consolidate(later, { maxUsers: 1 })).toMatchObject([{ consolidated: true, userId, liveAfter: 3 }]);
  });

  it('rewrites the summaries of the people with new memories through the gateway, counted under job consolidation', async () => {
    const later = new Date(night.getTime() + 9 * 86_400_000);
    const userId = await newUser('consolidate-entities');
    for (const name of ['Anna Berger', 'Stefan Huber']) await upsertEntity(db.pool, userId, { name, type: 'person' });
    await stored(userId, 'Anna Berger does my tax return', daysBefore(later, 12), ['Anna Berger']);
    await stored(userId, 'Anna Berger wants the receipts by March', daysBefore(later, 11), ['Anna Berger']);
    await stored(userId, 'Stefan Huber climbs on Sundays', daysBefore(later, 10), ['Stefan Huber']);

    // A spent budget refuses the first entity summary: the item fails and nothing is written.
    await setCap(db.pool, { scope: 'instance', period: 'day', limitTokens: 0 });
    try {
      const [failed] = await consolidate(later, { maxUsers: 1 });
      expect(failed).toMatchObject({ consolidated: false, userId, modelCalls: 1, status: 402 });
      expect((await findEntity(db.pool, userId, 'Anna Berger'))?.summary).toBeNull();
      const runs = await db.pool.query('SELECT 1 FROM assistant.consolidation_runs WHERE user_id = $1', [userId]);
      expect(runs.rowCount).toBe(0);
    } finally {
      await removeCap(db.pool, { scope: 'instance', period: 'day' });
    }

    const [item] = await consolidate(later, { maxUsers: 1 });
    expect(item).toMatchObject({
      consolidated: true,
      userId,
      merged: [],
      folded: [],
      entitiesSummarised: ['Anna Berger', 'Stefan Huber'],
      modelCalls: 2,
    });
    // The request is the real builder's (the static system message first); the fake echoes its user message.
    const facts = ['2027-05-29: Anna Berger does my tax return', '2027-05-30: Anna Berger wants the receipts by March'];
    const { messages } = entitySummaryRequest('Anna Berger', 'person', facts, { model: 'any' });
    const recorded = (await fetch(`${provider.url}/__requests?match=${encodeURIComponent('"Anna Berger"')}`).then((r) =>
      r.json(),
    )) as Array<{ body: { messages: unknown[] } }>;
    // Once: the refused call never reached the provider.
    expect(recorded.map((entry) => entry.body.messages)).toEqual([messages]);
    expect((await findEntity(db.pool, userId, 'Anna Berger'))?.summary).toBe(
      `echo: ${messages[1].content.slice(0, 200)}`.trim(),
    );
    await gateway.flushed();
    const calls = (await listModelCalls(db.pool, started)).filter(
      (row) => row.job === 'consolidation' && row.user_id === userId,
    );
    // The refused call and the two summaries, each under job consolidation and the user.
    expect(calls.map((row) => row.status).sort()).toEqual([200, 200, 402]);
    const [report] = await run([
      { operation: 'consolidationReport', userId, since: daysBefore(later, 1).toISOString() },
    ]);
    expect(report.text).toContain('- 2 people and things re-summarised: Anna Berger, Stefan Huber');
  });

  it('refuses a time limit that leaves no room for a summary, naming it', async () => {
    const [item] = await consolidate(night, { timeLimitSeconds: 300 }, { continueOnFail: true });
    expect(item.error).toContain('timeLimitSeconds');
    expect(item.error).toContain('must exceed the model timeout (300 s) by more than a minute');
  });

  it('consolidates no one while the memory budget is 0 (the nightly pass off)', async () => {
    const later = new Date(night.getTime() + 6 * 86_400_000);
    const userId = await newUser('consolidate-off');
    for (let i = 0; i < 5; i++) await stored(userId, `Old ticket ${i} for train ${i}`, daysBefore(later, 90 - i));
    await updateInstanceSettings(db.pool, { memoryBudget: 0 });
    try {
      expect(await consolidate(later)).toEqual([{ consolidated: false }]);
      expect(await liveCount(userId)).toBe(5);
    } finally {
      await updateInstanceSettings(db.pool, { memoryBudget: 3 });
    }
    expect(await consolidate(later, { maxUsers: 1 })).toMatchObject([
      { consolidated: true, userId, budget: 3, liveAfter: 3 },
    ]);
  });
});

describe('the memory panel operations', () => {
  it('pins, restores by id (refused after 30 days), reports and lists what is kept', async () => {
    const userId = await newUser('panel');
    const pinned = await stored(userId, 'My first bike was a red Puch', daysBefore(night, 300));
    const old = [];
    for (let i = 0; i < 4; i++)
      old.push(await stored(userId, `Old lunch ${i} was soup ${i}`, daysBefore(night, 200 - i)));
    const [pin] = await run([{ operation: 'pinMemory', userId, memoryId: pinned.id, pinned: true }]);
    expect(pin).toMatchObject({ memory: { id: pinned.id, pinned: true } });

    const result = await consolidateMemories(db.pool, userId, {
      now: night,
      budget: 2,
      summarise: async (texts) => `Lunches: ${texts.length}`,
    });
    const [foldedId] = result.folded[0].ids;
    expect(result.folded[0].ids).not.toContain(pinned.id);

    const [report] = await run([
      { operation: 'consolidationReport', userId, since: daysBefore(night, 1).toISOString() },
    ]);
    expect(report.text).toContain(`- 4 old memories folded into the summary memory ${result.folded[0].into}: `);

    const late = new Date(night.getTime() + 31 * 86_400_000).toISOString();
    const [refused] = await run([{ operation: 'restoreMemory', userId, memoryId: foldedId, now: late }], {
      continueOnFail: true,
    });
    expect(refused.error).toContain(`memory ${foldedId} was folded on 2027-06-01`);
    const [restored] = await run([
      { operation: 'restoreMemory', userId, memoryId: foldedId, now: night.toISOString() },
    ]);
    expect(restored).toMatchObject({ restored: { id: foldedId, foldedInto: null } });

    const [kept] = await run([{ operation: 'listKept', userId, about: '', limit: 50 }]);
    const lines = kept.lines as string[];
    expect(lines).toContain(`memory ${pinned.id} (2026-08-05, pinned): My first bike was a red Puch`);
    expect(lines.find((line) => line.startsWith(`memory ${result.folded[0].into} `))).toMatch(
      /^memory \d+ \(\d{4}-\d{2}-\d{2}\): Lunches: 4$/,
    );
    expect(lines.find((line) => line.startsWith(`memory ${foldedId} `))).toMatch(/: Old lunch \d was soup \d$/);
    expect(lines).toHaveLength(3);
  });
});
