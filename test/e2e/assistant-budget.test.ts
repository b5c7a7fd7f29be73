// Spending caps on the real n8n (issue 30): the model gateway prices each turn's call by the fake provider's usage,
// tells the owner when a cap is half used, refuses the turn past the cap with a message that says why (the provider
// never gets it, the owner is told), lets exactly one of two turns racing at a cap through, records a recurring
// action whose job cap is spent as skipped, tells the owner at 50, 75 and 90 % once each, lets the owner raise a spent
// cap by replying yes on Telegram, and starts a new window when the day ends (the gateway's clock moved in test mode).
import { writeFileSync } from 'node:fs';
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
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { postgresCredentialData } from './setup/postgres-credential';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';

const OWNER_CHAT = 4242001;
const run = Math.random().toString(36).slice(2, 8);
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
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

/** The ledger rows of a turn's model calls: the gateway writes an answered call's row just after answering it. */
const callOf = async (turnId: number | undefined) =>
  waitFor(
    async () => {
      const rows = (
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
      return rows.length > 0 ? rows : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: `the ledger row of turn ${turnId}` },
  );

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

/**
 * A turn sized like the probe: ~4,000 tokens of message on top of the agent's prompt (its router tools are ~1,700
 * tokens), so that what a turn costs is a large enough share of what it reserves (its prompt and 2,048 output tokens)
 * for two turns to reach the 50 % notice of a cap that has no room for a third.
 */
const sized = (text: string) => `${text} ${'the quick brown fox jumps over the lazy dog. '.repeat(360)}`;

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
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
  const answer = await ask(sized(`budget probe ${run}`), `probe-${run}`);
  expect(answer.status).toBe(200);
  const [call] = await callOf(answer.body.turn_id);
  probe = { cost: Number(call.cost_micros), reserved: call.measured + 2048 * 4 };
});

afterAll(async () => {
  if (stack.gateway.clockFile) writeFileSync(stack.gateway.clockFile, '0');
  // The owner's notices go out now, not into a later file's count of what Telegram was sent.
  const stopTick = await startFastTick(stack, `budget drain ${run}`, 5);
  try {
    await waitFor(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM assistant.outbox WHERE user_id = $1 AND status IN ('pending', 'sending') LIMIT 1`,
            [ownerId],
          )
        ).rowCount === 0,
      { timeoutMs: 90_000, intervalMs: 1000, what: "the owner's notices delivered" },
    );
  } finally {
    await stopTick();
  }
  await updateInstanceSettings(db, { chatModel: 'gpt-4o-mini' }).catch(() => undefined);
  await db?.end();
});

describe('spending caps', () => {
  it("prices each turn by the provider's usage, tells the owner at 50 %, and refuses the turn past the cap", async () => {
    const user = await cappedUser('capped', probe);
    const costs: number[] = [];
    for (const n of [1, 2]) {
      const question = sized(`question number ${n} ${run}`);
      const answer = await ask(question, user);
      // The fake echoes the first 200 characters.
      expect(answer.body).toMatchObject({ reply: `echo: ${question.slice(0, 200)}` });
      const [call] = await callOf(answer.body.turn_id);
      expect(call.outcome).toBe('ok');
      // $1 per million prompt tokens and $4 per million output tokens, in millionths of a dollar.
      expect(Number(call.cost_micros)).toBe(call.prompt_tokens * 1 + call.output_tokens * 4);
      costs.push(Number(call.cost_micros));
    }
    expect(await ownerNotices('50 %')).toHaveLength(1);

    const marker = `over the cap ${run}`;
    const refused = await ask(sized(marker), user);
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
    expect(stored.rows[0].content).toBe(sized(marker));
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
    const answers = await Promise.all([ask(sized(`race ${run} one`), user), ask(sized(`race ${run} two`), user)]);
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
    // No failure of the action; failure awareness names the skip (and the spending cap's stop).
    const failures = await db.query('SELECT DISTINCT source FROM assistant.failures WHERE user_id = $1 ORDER BY 1', [
      userId,
    ]);
    expect(failures.rows.map((r) => r.source)).toEqual(['budget', 'skipped']);
  });

  it('tells the owner at 50, 75 and 90 % once each; past the cap, a yes in reply to their question raises it', async () => {
    // Long answers (2,000 tokens at $4/M) make a turn cost nearly what is reserved for it, so five turns fit a cap of
    // 5.2 turns and cross 50, 75 and 90 % one at a time (57.7, 76.9 and 96.2 %); the sixth is refused.
    const marker = `long answer ${run}`;
    await llm.addScript(marker, [{ content: 'x'.repeat(8000) }]);
    const sizing = await ask(`${marker} turn 0`, `sizing-${run}`);
    expect(sizing.status).toBe(200);
    const [sized] = await callOf(sizing.body.turn_id);
    const cost = Number(sized.cost_micros);
    expect(sized.measured + 2048 * 4).toBeLessThan(1.2 * cost);
    const name = `notices-${run}`;
    const userId = (await resolveIdentity(db, 'api', name)).userId;
    await setCap(db, { scope: 'user', userId, period: 'day', limitUsd: Math.round(5.2 * cost) / 1e6 });
    const about = `user ${userId.slice(0, 8)}'s model budget for today`;
    for (const n of [1, 2, 3, 4, 5]) expect((await ask(`${marker} turn ${n}`, name)).status).toBe(200);
    const told = await ownerNotices(about);
    expect(told.map((text) => text.match(/^💸 (\d+) % of/)?.[1])).toEqual(['50', '75', '90']);

    expect((await ask(`${marker} turn 6`, name)).status).toBe(502);
    const stopTick = await startFastTick(stack, `budget raise tick ${run}`, 5);
    try {
      const question = await waitFor(
        async () =>
          (await telegram.sent(OWNER_CHAT)).find(
            (m) => m.text.includes(`user ${userId.slice(0, 8)}`) && m.text.includes('Reply to this message with yes'),
          ),
        { timeoutMs: 90_000, intervalMs: 1000, what: 'the raise question on Telegram' },
      );
      expect(question.text).toContain('this agent call was not made');
      const before = (await telegram.sent(OWNER_CHAT)).length;
      await telegram.deliverText(OWNER_CHAT, 'yes', undefined, question.message_id);
      const [receipt] = (await telegram.waitForSent(OWNER_CHAT, before + 1)).slice(before);
      expect(receipt.text).toMatch(
        /^Raised: user [0-9a-f]{8}'s model budget for today \(\$\d\.\d{4}, raised\) now holds/,
      );
    } finally {
      await stopTick();
    }
    const raised = await db.query(
      `SELECT w.raised_micros::int AS raised FROM assistant.budget_windows w
         JOIN assistant.budget_caps c ON c.id = w.cap_id WHERE c.user_id = $1`,
      [userId],
    );
    expect(raised.rows).toEqual([{ raised: Math.round(5.2 * cost) }]);
    expect((await ask(`${marker} turn 7`, name)).status).toBe(200);
  });

  it("a spent window starts afresh when the day ends (the gateway's clock moved on, in test mode only)", async () => {
    const clockFile = stack.gateway.clockFile;
    if (!clockFile) throw new Error('the e2e stack starts its gateway with a test clock');
    const name = `reset-${run}`;
    const userId = (await resolveIdentity(db, 'api', name)).userId;
    // Room for one turn at its largest, not for a second.
    await setCap(db, {
      scope: 'user',
      userId,
      period: 'day',
      limitUsd: Math.round(probe.reserved + probe.cost / 2) / 1e6,
    });
    expect((await ask(sized(`reset turn one ${run}`), name)).status).toBe(200);
    expect((await ask(sized(`reset turn two ${run}`), name)).status).toBe(502);
    const [today] = (
      await db.query<{ ends_at: Date }>(
        `SELECT w.ends_at FROM assistant.budget_windows w JOIN assistant.budget_caps c ON c.id = w.cap_id
          WHERE c.user_id = $1`,
        [userId],
      )
    ).rows;
    try {
      writeFileSync(clockFile, String(Math.ceil((today.ends_at.getTime() - Date.now()) / 1000) + 5));
      const tomorrow = await ask(sized(`reset turn three ${run}`), name);
      expect(tomorrow.status).toBe(200);
    } finally {
      writeFileSync(clockFile, '0');
    }
    const windows = await db.query<{ starts_at: Date; spent: number }>(
      `SELECT w.starts_at, w.spent_micros::int AS spent FROM assistant.budget_windows w
         JOIN assistant.budget_caps c ON c.id = w.cap_id WHERE c.user_id = $1 ORDER BY w.starts_at`,
      [userId],
    );
    expect(windows.rows).toHaveLength(2);
    expect(windows.rows[1].starts_at.getTime()).toBe(today.ends_at.getTime());
    expect(windows.rows[1].spent).toBeGreaterThan(0);
  });
});
