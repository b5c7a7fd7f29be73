// The spending report on a real Postgres 17: the ledger's rows (inserted directly) summed per job and model over
// today, this week or this month in the user's own zone; a user sees their own calls, the owner the whole instance;
// the caps that cover the user with their current window.
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { setCap } from '../../src/budget/caps';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const OWNER_CHAT = '5151';

interface Call {
  at: string;
  userId: string | null;
  job?: string;
  model?: string;
  provider?: string;
  micros?: number | null;
  tokens?: [number, number, number];
  outcome?: string;
}

async function recordCall(pool: Pool, call: Call): Promise<void> {
  const [prompt, output, cached] = call.tokens ?? [100, 20, 10];
  await pool.query(
    `INSERT INTO assistant.model_calls (at, upstream, route, job, user_id, provider, model, prompt_tokens,
       output_tokens, cached_tokens, latency_ms, status, outcome, cost_micros, priced_by)
     VALUES ($1, 'chat', '/v1/chat/completions', $2, $3, $4, $5, $6, $7, $8, 50, 200, $9, $10, 'table 2026-11-01')`,
    [
      call.at,
      call.job ?? 'agent',
      call.userId,
      call.provider ?? 'openai',
      call.model ?? 'gpt-4o-mini',
      prompt,
      output,
      cached,
      call.outcome ?? 'ok',
      call.micros === undefined ? 1_000 : call.micros,
    ],
  );
}

let ownerId: string;

beforeAll(async () => {
  await assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: OWNER_CHAT, timeZone: 'UTC' });
  ownerId = (await assistant.resolveIdentity(db.pool, 'telegram', OWNER_CHAT)).userId;
});

describe('spendingReport', () => {
  it('sums a user’s calls of the month per job and model, refused calls apart, and says so in plain words', async () => {
    const userId = await createUser(db.pool, 'spender');
    const other = await createUser(db.pool, 'other');
    await recordCall(db.pool, { at: '2031-03-02T10:00:00Z', userId, micros: 1_500, tokens: [1_000, 200, 400] });
    await recordCall(db.pool, { at: '2031-03-05T10:00:00Z', userId, micros: 1_500, tokens: [2_000, 300, 0] });
    const heartbeat = { job: 'heartbeat', model: 'gpt-4o', micros: 250_000, tokens: [5_000, 100, 0] as Call['tokens'] };
    await recordCall(db.pool, { at: '2031-03-06T10:00:00Z', userId, ...heartbeat });
    await recordCall(db.pool, { at: '2031-03-07T10:00:00Z', userId, micros: null, outcome: 'over_budget' });
    await recordCall(db.pool, { at: '2031-02-28T10:00:00Z', userId, micros: 7_000_000 }); // last month
    await recordCall(db.pool, { at: '2031-03-06T10:00:00Z', userId: other, micros: 9_000_000 }); // someone else's

    const now = new Date('2031-03-10T12:00:00Z');
    const report = await assistant.spendingReport(db.pool, userId, { period: 'month', now });
    expect(report).toMatchObject({
      period: 'month',
      covers: 'user',
      from: '2031-03-01T00:00:00.000Z',
      to: now.toISOString(),
      totalUsd: 0.253,
      calls: 3,
      tokens: { prompt: 8_000, output: 600, cached: 400 },
      refusedOverBudget: 1,
    });
    expect(report.byJob).toEqual([
      { job: 'heartbeat', usd: 0.25, calls: 1, tokens: { prompt: 5_000, output: 100, cached: 0 } },
      { job: 'agent', usd: 0.003, calls: 2, tokens: { prompt: 3_000, output: 500, cached: 400 } },
    ]);
    expect(report.byModel.map(({ provider, model, usd, calls }) => ({ provider, model, usd, calls }))).toEqual([
      { provider: 'openai', model: 'gpt-4o', usd: 0.25, calls: 1 },
      { provider: 'openai', model: 'gpt-4o-mini', usd: 0.003, calls: 2 },
    ]);
    expect(report.text).toContain('This month (since Sat 2031-03-01 00:00 UTC), your calls: $0.25 on 3 model calls.');
    expect(report.text).toContain('By job: heartbeat $0.25 (1 call), agent $0.0030 (2 calls).');
    expect(report.text).toContain('1 call refused because a spending cap was reached.');
  });

  it("reads today and this week in the user's own zone", async () => {
    const userId = await createUser(db.pool, 'auckland');
    await assistant.updateUserSettings(db.pool, userId, { timeZone: 'Pacific/Auckland' });
    // 20:00 UTC on Sat 28 Nov is 09:00 on Sun 29 Nov in Auckland (NZDT, UTC+13): the day began at 11:00 UTC.
    const now = new Date('2037-11-28T20:00:00Z');
    await recordCall(db.pool, { at: '2037-11-28T10:30:00Z', userId, micros: 10_000 }); // Auckland's Saturday
    await recordCall(db.pool, { at: '2037-11-28T11:30:00Z', userId, micros: 20_000 }); // Auckland's Sunday
    await recordCall(db.pool, { at: '2037-11-21T10:30:00Z', userId, micros: 40_000 }); // the week before
    const today = await assistant.spendingReport(db.pool, userId, { period: 'today', now });
    expect(today).toMatchObject({
      from: '2037-11-28T11:00:00.000Z',
      totalUsd: 0.02,
      calls: 1,
      timeZone: 'Pacific/Auckland',
    });
    expect(today.text).toContain(
      'Today (since Sun 2037-11-29 00:00 Pacific/Auckland), your calls: $0.02 on 1 model call.',
    );
    // The week began on Monday 23 Nov, 00:00 in Auckland.
    const week = await assistant.spendingReport(db.pool, userId, { period: ' Week ', now });
    expect(week).toMatchObject({ period: 'week', from: '2037-11-22T11:00:00.000Z', totalUsd: 0.03, calls: 2 });
  });

  it('shows the owner every call of the instance, those without a user too', async () => {
    const userId = await createUser(db.pool, 'someone');
    await recordCall(db.pool, { at: '2033-05-10T08:00:00Z', userId, micros: 100_000 });
    await recordCall(db.pool, { at: '2033-05-10T09:00:00Z', userId: ownerId, micros: 200_000 });
    await recordCall(db.pool, { at: '2033-05-10T10:00:00Z', userId: null, job: 'judge', micros: 300_000 });
    const now = new Date('2033-05-10T12:00:00Z');
    const owners = await assistant.spendingReport(db.pool, ownerId, { period: 'today', now });
    expect(owners).toMatchObject({ covers: 'instance', totalUsd: 0.6, calls: 3 });
    expect(owners.byJob.map(({ job, usd }) => ({ job, usd }))).toEqual([
      { job: 'agent', usd: 0.3 },
      { job: 'judge', usd: 0.3 },
    ]);
    expect(owners.text).toContain('the whole instance: $0.60 on 3 model calls');
    const theirs = await assistant.spendingReport(db.pool, userId, { period: 'today', now });
    expect(theirs).toMatchObject({ covers: 'user', totalUsd: 0.1, calls: 1 });
  });

  it('lists the caps that cover the user with their window, and the owner every cap', async () => {
    const userId = await createUser(db.pool, 'capped');
    const other = await createUser(db.pool, 'uncapped');
    const instanceCap = await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 5 });
    const userCap = await setCap(db.pool, { scope: 'user', userId, period: 'month', limitTokens: 100_000 });
    const otherCap = await setCap(db.pool, { scope: 'user', userId: other, period: 'day', limitUsd: 1 });
    await db.pool.query(
      `INSERT INTO assistant.budget_windows (cap_id, starts_at, ends_at, spent_micros, spent_tokens)
       VALUES ($1, '2034-01-15T00:00:00Z', '2034-01-16T00:00:00Z', 1250000, 9000)`,
      [instanceCap.id],
    );
    const now = new Date('2034-01-15T12:00:00Z');
    const report = await assistant.spendingReport(db.pool, userId, { period: 'today', now });
    expect(
      report.caps.map(({ id, spentUsd, spentTokens, resetsAt }) => ({ id, spentUsd, spentTokens, resetsAt })),
    ).toEqual([
      { id: instanceCap.id, spentUsd: 1.25, spentTokens: 9_000, resetsAt: '2034-01-16T00:00:00.000Z' },
      { id: userCap.id, spentUsd: 0, spentTokens: 0, resetsAt: '2034-02-01T00:00:00.000Z' },
    ]);
    expect(report.text).toContain(
      "The instance's daily cap: $1.25 of $5.00 spent; it resets Mon 2034-01-16 00:00 UTC.",
    );
    expect(report.text).toContain('Your monthly cap: 0 of 100,000 tokens spent; it resets Wed 2034-02-01 00:00 UTC.');
    const owners = await assistant.spendingReport(db.pool, ownerId, { period: 'today', now });
    expect(owners.caps.map((cap) => cap.id)).toEqual([instanceCap.id, userCap.id, otherCap.id]);
  });

  it('refuses a period other than today, week or month, naming it', async () => {
    const userId = await createUser(db.pool, 'bad-period');
    for (const period of ['year', '', undefined, 7])
      await expectFieldError(() => assistant.spendingReport(db.pool, userId, { period }), 'period');
  });
});
