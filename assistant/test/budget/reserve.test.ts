// Reserving model calls against spending caps on a real Postgres: the limits hold under concurrency, a reservation
// settles to what the call cost, windows follow the time zone, and the owner hears of each threshold once.
import { beforeEach, describe, expect, it } from 'vitest';
import { setCap } from '../../src/budget/caps';
import { BudgetExceededError, reserveBudget, settleBudget } from '../../src/budget/reserve';
import { resolveIdentity } from '../../src/identities/identities';
import { updateInstanceSettings } from '../../src/settings/settings';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
const NOW = new Date('2026-11-28T12:00:00Z');
const agent = { job: 'agent' };

const windows = async () =>
  (
    await db.pool.query(
      'SELECT cap_id, starts_at, ends_at, spent_micros::int, reserved_micros::int, spent_tokens::int, notified_percent FROM assistant.budget_windows ORDER BY cap_id, starts_at',
    )
  ).rows;

beforeEach(async () => {
  await db.pool.query('DELETE FROM assistant.budget_caps');
  await db.pool.query("DELETE FROM assistant.outbox WHERE kind = 'notice'");
  await updateInstanceSettings(db.pool, { timeZone: 'UTC' });
});

describe('reserving a call', () => {
  it('passes without caps, holding nothing', async () => {
    expect(await reserveBudget(db.pool, { caller: agent, tokens: 10, micros: 10, now: NOW })).toEqual({ held: [] });
  });

  it('holds the largest cost, then settles to the real one', async () => {
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
    const reservation = await reserveBudget(db.pool, { caller: agent, tokens: 3000, micros: 6000, now: NOW });
    expect(await windows()).toMatchObject([{ reserved_micros: 6000, spent_micros: 0 }]);
    await settleBudget(db.pool, reservation, { tokens: 1200, micros: 2500 });
    expect(await windows()).toMatchObject([{ reserved_micros: 0, spent_micros: 2500, spent_tokens: 1200 }]);
  });

  it('refuses what the window cannot cover at its largest, naming the cap, the reset and what to do', async () => {
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
    await reserveBudget(db.pool, { caller: agent, tokens: 100, micros: 6000, now: NOW });
    const refused = reserveBudget(db.pool, { caller: { job: 'heartbeat' }, tokens: 100, micros: 6000, now: NOW });
    await expect(refused).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(refused).rejects.toThrow(
      "The model budget for today ($0.0100) cannot cover this call at its largest ($0.00 and 0 tokens used, $0.0060 held by calls under way); this heartbeat call was not made. It resets at Sun 2026-11-29 00:00 UTC; the owner can raise it (by a yes to the question they are asked, or by ASSISTANT_BUDGET_DAY_USD for the assistant's, or a cap for a user or a job).",
    );
  });

  it('lets exactly as many racing calls through as the cap covers', async () => {
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
    const racing = Array.from({ length: 10 }, () =>
      reserveBudget(db.pool, { caller: agent, tokens: 10, micros: 3000, now: NOW }).then(
        () => 'passed',
        (error: Error) => error.name,
      ),
    );
    const results = await Promise.all(racing);
    expect(results.filter((r) => r === 'passed')).toHaveLength(3);
    expect(results.filter((r) => r === 'BudgetExceededError')).toHaveLength(7);
    expect(await windows()).toMatchObject([{ reserved_micros: 9000 }]);
  });

  it('a free call (a local model) passes a money cap that is spent, a priced one does not', async () => {
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0 });
    expect((await reserveBudget(db.pool, { caller: agent, tokens: 500, micros: 0, now: NOW })).held).toHaveLength(1);
    await expect(reserveBudget(db.pool, { caller: agent, tokens: 500, micros: 1, now: NOW })).rejects.toThrow(
      'The model budget for today ($0.00) is spent',
    );
  });

  it('caps tokens too (a local model costs nothing)', async () => {
    await setCap(db.pool, { scope: 'instance', period: 'month', limitTokens: 5000 });
    const r = await reserveBudget(db.pool, { caller: agent, tokens: 4000, micros: 0, now: NOW });
    await settleBudget(db.pool, r, { tokens: 5000, micros: 0 });
    await expect(reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 0, now: NOW })).rejects.toThrow(
      'The model budget for this month (5,000 tokens) is spent',
    );
  });

  it('a job cap covers that job (expert covers every expert), a user cap that user', async () => {
    const user = (await resolveIdentity(db.pool, 'api', 'budget-user')).userId;
    const other = (await resolveIdentity(db.pool, 'api', 'budget-other')).userId;
    await setCap(db.pool, { scope: 'job', job: 'expert', period: 'day', limitUsd: 0 });
    await setCap(db.pool, { scope: 'user', userId: user, period: 'day', limitUsd: 0 });
    await expect(
      reserveBudget(db.pool, { caller: { job: 'expert:researcher' }, tokens: 1, micros: 1, now: NOW }),
    ).rejects.toThrow("The expert job's model budget for today ($0.00) is spent");
    await expect(
      reserveBudget(db.pool, { caller: { job: 'agent', user }, tokens: 1, micros: 1, now: NOW }),
    ).rejects.toThrow('Your model budget for today ($0.00) is spent');
    expect(
      (await reserveBudget(db.pool, { caller: { job: 'agent', user: other }, tokens: 1, micros: 1, now: NOW })).held,
    ).toEqual([]);
  });
});

describe('windows', () => {
  it("follow the instance's time zone, and a new day starts afresh", async () => {
    await updateInstanceSettings(db.pool, { timeZone: 'Pacific/Chatham' });
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
    // 12:00 UTC is 01:45 the next day in Chatham (+13:45): that local day started at 10:15 UTC.
    const r = await reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 10_000, now: NOW });
    await settleBudget(db.pool, r, { tokens: 1, micros: 10_000 });
    const [window] = await windows();
    expect(window.starts_at.toISOString()).toBe('2026-11-28T10:15:00.000Z');
    expect(window.ends_at.toISOString()).toBe('2026-11-29T10:15:00.000Z');
    await expect(reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 1, now: NOW })).rejects.toThrow('is spent');
    const nextDay = new Date('2026-11-29T10:15:00Z');
    expect((await reserveBudget(db.pool, { caller: agent, tokens: 1, micros: 1, now: nextDay })).held).toHaveLength(1);
  });
});

describe('telling the owner', () => {
  it('once per threshold crossed in a window: 50, 75, 90 and 100 %', async () => {
    await updateInstanceSettings(db.pool, { ownerTelegramChatId: '777001' });
    const owner = (await resolveIdentity(db.pool, 'telegram', '777001')).userId;
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.01 });
    const spend = async (micros: number) =>
      settleBudget(db.pool, await reserveBudget(db.pool, { caller: agent, tokens: 1, micros, now: NOW }), {
        tokens: 1,
        micros,
      });
    expect(await spend(4000)).toEqual([]);
    expect((await spend(1000)).map((n) => n.percent)).toEqual([50]);
    expect(await spend(100)).toEqual([]);
    expect((await spend(3000)).map((n) => n.percent)).toEqual([75]); // 81 %: 75 only, once
    expect((await spend(1000)).map((n) => n.percent)).toEqual([90]);
    await expect(spend(1000)).rejects.toThrow(BudgetExceededError); // 91 % + 10 % does not fit
    const told = await db.pool.query(
      "SELECT text FROM assistant.outbox WHERE user_id = $1 AND kind = 'notice' ORDER BY id",
      [owner],
    );
    expect(told.rows.map((r) => r.text.slice(0, 9))).toEqual(['💸 50 % o', '💸 75 % o', '💸 90 % o', 'The model']);
    await expect(spend(1000)).rejects.toThrow(BudgetExceededError);
    expect(
      (await db.pool.query("SELECT count(*)::int AS n FROM assistant.outbox WHERE kind = 'notice'")).rows[0].n,
    ).toBe(4);
  });
});
