// The nightly consolidation on the real n8n + Postgres 17: the memory consolidation workflow's real Schedule Trigger
// fires every minute and consolidates a user whose quiet hours contain now (here: the hour around the run), within the
// instance's memoryBudget (3 here; the run keeps it 0, off, elsewhere), the summary written by the chat fake through
// the model gateway. Then the memory panel over the agent: what was tidied, a folded memory restored, one pinned, the
// kept memories listed by id, and an unknown action named.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  remember,
  resolveIdentity,
  runMigrations,
  updateInstanceSettings,
  updateUserPreferences,
} from 'assistant-core';
import { waitFor } from '../../scripts/runtime/process';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { e2eStack, type E2EStack } from './setup/harness';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const user = `consolidation-${run}`;
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;
let userId = '';
const ids: Record<'teaA' | 'teaB' | 'bike', number> = { teaA: 0, teaB: 0, bike: 0 };
const parking: number[] = [];

const DAY_MS = 86_400_000;
const clock = (at: Date) => at.toISOString().slice(11, 16);

async function stored(content: string, daysOld: number): Promise<number> {
  const memory = await remember(db, userId, { content });
  await db.query('UPDATE assistant.memories SET created_at = $2 WHERE id = $1', [
    memory.id,
    new Date(Date.now() - daysOld * DAY_MS),
  ]);
  return memory.id;
}

async function say(message: string, steps: ScriptStep[]): Promise<string | undefined> {
  await llm.addScript(message, steps);
  const answer = await postToAgent<{ reply?: string }>(stack, { message, user_id: user });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.reply;
}

const panel = (args: { action: string; about?: string; memory_id?: number }): ScriptStep[] => [
  { tool_calls: [viaRouter('memory_panel', { about: '', memory_id: 0, ...args })] },
  { content: 'Panel: {{last_tool_result}}' },
];

const folded = async (id: number) =>
  (await db.query('SELECT folded_into, pinned FROM assistant.memories WHERE id = $1', [id])).rows[0] as {
    folded_into: string | null;
    pinned: boolean;
  };

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  await configureAssistantCredentials(stack);
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);

  userId = (await resolveIdentity(db, 'api', user)).userId;
  // Quiet hours around now (UTC), so this user is due whatever the time of the run.
  const now = Date.now();
  await updateUserPreferences(db, userId, {
    timeZone: 'UTC',
    quietHours: { start: clock(new Date(now - 60 * 60_000)), end: clock(new Date(now + 60 * 60_000)) },
  });
  ids.bike = await stored('My first bike was a red Puch', 400);
  ids.teaA = await stored('I like green tea in the morning', 95);
  ids.teaB = await stored('In the morning I like green tea', 94);
  for (let i = 0; i < 5; i++) parking.push(await stored(`Old parking spot ${i} on level ${i}`, 90 - i));
  await db.query('UPDATE assistant.memories SET pinned = true WHERE id = $1', [ids.bike]);

  // Every other user counts as consolidated just now: the pass (one user a minute) reaches this one first.
  await db.query(
    `INSERT INTO assistant.consolidation_runs (user_id, ran_at, budget, live_before, live_after)
       SELECT id, now(), 3, 0, 0 FROM assistant.users WHERE id <> $1`,
    [userId],
  );
  await updateInstanceSettings(db, { memoryBudget: 3 });
  await waitFor(
    async () =>
      ((await db.query('SELECT 1 FROM assistant.consolidation_runs WHERE user_id = $1', [userId])).rowCount ?? 0) > 0,
    { timeoutMs: 200_000, intervalMs: 2_000, what: `the nightly consolidation of ${user}` },
  );
}, 300_000);

afterAll(async () => {
  await updateInstanceSettings(db, { memoryBudget: 0 }).catch(() => undefined);
  await db?.end();
});

describe('the nightly consolidation, by the real minute trigger', () => {
  it('merges the repeat, folds the old memories into a summary within the budget, keeps the pinned one', async () => {
    const live = await db.query(
      `SELECT id, content, source FROM assistant.memories
        WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL ORDER BY id`,
      [userId],
    );
    expect(live.rows.length).toBeLessThanOrEqual(3);
    expect(live.rows.map((row) => Number(row.id))).toContain(ids.bike);
    expect((await folded(ids.teaA)).folded_into ?? (await folded(ids.teaB)).folded_into).not.toBeNull();
    const summary = live.rows.find((row) => row.source === 'consolidation');
    expect(summary?.content).toMatch(/^echo: The notes, oldest first:/);
    const parked = await Promise.all(parking.map(folded));
    expect(parked.filter((row) => row.folded_into === String(summary?.id)).length).toBeGreaterThan(0);

    const calls = await db.query(
      `SELECT count(*)::int AS n FROM assistant.model_calls WHERE job = 'consolidation' AND user_id = $1`,
      [userId],
    );
    expect(calls.rows[0].n).toBeGreaterThanOrEqual(1);
  });
});

describe('the memory panel, over the agent', () => {
  it('"what did you tidy up last night?" tells the ledger with ids', async () => {
    const reply = await say(`What did you tidy up last night? [tidied-${run}]`, panel({ action: 'tidied' }));
    expect(reply).toContain('memories before');
    expect(reply).toContain('repeats merged into memory');
    expect(reply).toContain('old memories folded into the summary memory');
  });

  it('restores a folded memory by id, and pins another', async () => {
    const [parked] = parking;
    expect((await folded(parked)).folded_into).not.toBeNull();
    await say(`Bring back memory ${parked} [restore-${run}]`, panel({ action: 'restore', memory_id: parked }));
    expect((await folded(parked)).folded_into).toBeNull();

    await say(`Pin memory ${parked} [pin-${run}]`, panel({ action: 'pin', memory_id: parked }));
    expect((await folded(parked)).pinned).toBe(true);
  });

  it('lists what is kept with ids and dates', async () => {
    const reply = await say(`What do you know about me? [list-${run}]`, panel({ action: 'list' }));
    expect(reply).toContain(`memory ${ids.bike} (`);
    expect(reply).toContain('My first bike was a red Puch');
  });

  it('names the actions when the model asks for one that does not exist', async () => {
    const reply = await say(`Shred my memories [shred-${run}]`, panel({ action: 'shred' }));
    expect(reply).toMatch(/action must be one of list, pin, unpin, restore or tidied; got \\?"shred\\?"/);
  });
});
