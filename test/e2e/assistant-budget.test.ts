// Spending caps on the real n8n (issue 30): the model gateway prices each turn's call by the fake provider's usage,
// tells the owner when a cap is half used, refuses the turn past the cap with a message that says why (the provider
// never gets it, the owner is told), lets exactly one of two turns racing at a cap through, and records a recurring
// action whose job cap is spent as skipped.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeCap,
  resolveIdentity,
  runMigrations,
  scheduleAction,
  setCap,
  updateInstanceSettings,
} from 'assistant-core';
import { waitFor } from '../../scripts/runtime/process';
import { startFastTick } from './setup/fast-tick';
import { E2E_PRICED_MODEL } from '../fakes/assistant-e2e-fakes';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { e2eStack, type E2EStack } from './setup/harness';
import { postgresCredentialData } from './setup/postgres-credential';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';

const OWNER_CHAT = 4242001;
const run = Math.random().toString(36).slice(2, 8);
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;
let ownerId: string;

async function ask(message: string, userId: string) {
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify({ message, user_id: userId, session_id: `s-${Math.random().toString(36).slice(2)}` }),
  });
  return { status: response.status, body: (await response.json()) as { reply?: string; turn_id?: number } };
}

const callOf = async (turnId: number | undefined) =>
  (
    await db.query<{
      outcome: string;
      cost_micros: string;
      prompt_tokens: number;
      output_tokens: number;
      measured: number;
    }>(
      `SELECT outcome, cost_micros, prompt_tokens, output_tokens, measured_prompt_tokens AS measured
         FROM assistant.model_calls WHERE ref = $1 ORDER BY id`,
      [String(turnId)],
    )
  ).rows;

const ownerNotices = async (match: string) =>
  (
    await db.query<{ text: string }>(
      `SELECT text FROM assistant.outbox WHERE user_id = $1 AND kind = 'notice' AND text LIKE $2 ORDER BY id`,
      [ownerId, `%${match}%`],
    )
  ).rows.map((r) => r.text);

/** A user with a daily cap that covers exactly two turns like the probe, at their largest, and no third. */
async function cappedUser(name: string, probe: { cost: number; reserved: number }): Promise<string> {
  const userId = (await resolveIdentity(db, 'api', `${name}-${run}`)).userId;
  await setCap(db, { scope: 'user', userId, period: 'day', limitUsd: (probe.reserved + probe.cost * 1.2) / 1e6 });
  return `${name}-${run}`;
}

let probe: { cost: number; reserved: number };

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  await updateInstanceSettings(db, {
    ownerTelegramChatId: String(OWNER_CHAT),
    failureReportMinutes: 0,
    chatModel: E2E_PRICED_MODEL,
  });
  ownerId = (await resolveIdentity(db, 'telegram', String(OWNER_CHAT))).userId;
  // A turn without a cap: what one plain turn costs, and what the gateway reserves for it (prompt as measured at
  // $1/M, the 2,048-token answer it may give at $4/M).
  const answer = await ask(`budget probe ${run}`, `probe-${run}`);
  expect(answer.status).toBe(200);
  const [call] = await callOf(answer.body.turn_id);
  probe = { cost: Number(call.cost_micros), reserved: call.measured + 2048 * 4 };
});

afterAll(async () => {
  await updateInstanceSettings(db, { chatModel: 'gpt-4o-mini' }).catch(() => undefined);
  await db?.end();
});

describe('spending caps', () => {
  it("prices each turn by the provider's usage, tells the owner at 50 %, and refuses the turn past the cap", async () => {
    const user = await cappedUser('capped', probe);
    const costs: number[] = [];
    for (const n of [1, 2]) {
      const answer = await ask(`question number ${n} ${run}`, user);
      expect(answer.body).toMatchObject({ reply: `echo: question number ${n} ${run}` });
      const [call] = await callOf(answer.body.turn_id);
      expect(call.outcome).toBe('ok');
      // $1 per million prompt tokens and $4 per million output tokens, in millionths of a dollar.
      expect(Number(call.cost_micros)).toBe(call.prompt_tokens * 1 + call.output_tokens * 4);
      costs.push(Number(call.cost_micros));
    }
    expect(await ownerNotices('50 %')).toHaveLength(1);

    const marker = `over the cap ${run}`;
    const refused = await ask(marker, user);
    expect(refused.status).toBe(502);
    expect(await llm.requests(marker)).toEqual([]);
    const [call] = await callOf(refused.body.turn_id);
    expect(call.outcome).toBe('over_budget');
    const turn = await db.query('SELECT status, error FROM assistant.turns WHERE id = $1', [refused.body.turn_id]);
    expect(turn.rows[0].status).toBe('failed');
    expect(turn.rows[0].error).toContain('Your model budget for today');
    expect(turn.rows[0].error).toContain('this agent call was not made. It resets at');
    // The message is kept.
    const stored = await db.query('SELECT content FROM assistant.turns WHERE id = $1', [refused.body.turn_id]);
    expect(stored.rows[0].content).toBe(marker);
    // The owner is told once, and the window spent exactly what the two turns cost.
    expect(await ownerNotices('this agent call was not made')).toHaveLength(1);
    const window = await db.query(
      `SELECT w.spent_micros::int AS spent, w.reserved_micros::int AS reserved FROM assistant.budget_windows w
         JOIN assistant.budget_caps c ON c.id = w.cap_id JOIN assistant.identities i ON i.user_id = c.user_id
        WHERE i.identity = $1`,
      [`api:${user}`],
    );
    expect(window.rows).toEqual([{ spent: costs[0] + costs[1], reserved: 0 }]);
  });

  it('two turns racing at a cap: exactly one passes', async () => {
    // Room for one turn's reservation and a half: the first holds its reservation while the (slow) model answers.
    const user = await cappedUser('racing', { cost: 0, reserved: probe.reserved * 1.5 });
    await llm.addScript(`race ${run}`, [{ content: 'answered', delay_ms: 3000 }]);
    const answers = await Promise.all([ask(`race ${run} one`, user), ask(`race ${run} two`, user)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 502]);
    expect(await llm.requests(`race ${run}`)).toHaveLength(1);
  });

  it('a recurring action past its job cap is recorded as skipped for budget, not as a failure', async () => {
    const userId = (await resolveIdentity(db, 'api', `action-${run}`)).userId;
    await setCap(db, { scope: 'job', job: 'action', period: 'day', limitUsd: 0 });
    const instruction = `summarise the news ${run}`;
    const scheduled = await scheduleAction(
      db,
      userId,
      { instruction, schedule: 'every minute' },
      new Date(Date.now() - 120_000),
    );
    if (!scheduled.ok) throw new Error(scheduled.message);
    const stopTick = await startFastTick(stack, `budget fast tick ${run}`, 5);
    try {
      const status = await waitFor(
        async () =>
          (
            await db.query<{ status: string }>(
              `SELECT status FROM assistant.action_runs WHERE action_id = $1 AND status <> 'running' ORDER BY id LIMIT 1`,
              [scheduled.action.id],
            )
          ).rows[0]?.status,
        { timeoutMs: 120_000, intervalMs: 1000, what: "the action's first run" },
      );
      expect(status).toBe('skipped');
    } finally {
      await stopTick();
      await db.query('DELETE FROM assistant.scheduled_actions WHERE id = $1', [scheduled.action.id]);
      await removeCap(db, { scope: 'job', job: 'action', period: 'day' });
    }
    expect(await llm.requests(instruction)).toEqual([]);
    const failures = await db.query('SELECT count(*)::int AS n FROM assistant.failures WHERE user_id = $1', [userId]);
    expect(failures.rows[0].n).toBe(0);
  });
});
