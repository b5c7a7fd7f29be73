// Checks on a real Postgres 17: added with clear refusals (schedule, guard, a gate without a judge), listed, paused
// and resumed, deleted; claimed by the tick once per due run, never overlapping the previous run, with runs that
// outlive the 5-minute limit recorded as failed once.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const allowAll = { check: async (url: string) => ({ allowed: true as const, url: new URL(url), addresses: [] }) };
const judgeUp = async () => null;
const T0 = new Date('2036-05-01T09:00:30Z');

async function added(userId: string, input: Parameters<typeof assistant.addCheck>[2], now = T0) {
  const result = await assistant.addCheck(db.pool, userId, input, now, { guard: allowAll, judgeProblem: judgeUp });
  if (!result.ok) throw new Error(result.message);
  return result.check;
}

const runsOf = (runs: assistant.DueCheckRun[], checkId: number) => runs.filter((run) => run.checkId === checkId);

describe('checks', () => {
  it('adds a check due on the next minute, lists it, pauses, resumes and deletes it', async () => {
    const userId = await createUser(db.pool, 'chk');
    const result = await assistant.addCheck(
      db.pool,
      userId,
      { what: 'https://shop.test/item', schedule: 'every 15 minutes' },
      T0,
      { guard: allowAll },
    );
    expect(result).toMatchObject({
      ok: true,
      check: { kind: 'page', status: 'active', nextRunAt: '2036-05-01T09:00:00.000Z' },
    });
    if (!result.ok) return;
    expect(result.message).toContain('records the current state silently as the baseline');
    expect(await assistant.listChecks(db.pool, userId)).toMatchObject([
      { id: result.check.id, watches: 'the page https://shop.test/item' },
    ]);
    const paused = await assistant.pauseCheck(db.pool, userId, result.check.id);
    expect(paused.status).toBe('paused');
    expect(runsOf(await assistant.claimDueChecks(db.pool, new Date('2036-05-01T10:00:00Z')), result.check.id)).toEqual(
      [],
    );
    await expectFieldError(() => assistant.pauseCheck(db.pool, userId, result.check.id), 'check_id');
    const resumed = await assistant.resumeCheck(db.pool, userId, result.check.id, new Date('2036-05-01T10:00:40Z'));
    expect(resumed).toMatchObject({ status: 'active', nextRunAt: '2036-05-01T10:00:00.000Z' });
    await assistant.deleteCheck(db.pool, userId, result.check.id);
    expect(await assistant.listChecks(db.pool, userId)).toEqual([]);
    await expectFieldError(() => assistant.deleteCheck(db.pool, userId, result.check.id), 'check_id', 'notFound');
    // Another user's check is not found either.
    const mine = await added(userId, { what: 'q', schedule: 'every hour' });
    const other = await createUser(db.pool, 'chk');
    await expectFieldError(() => assistant.checkHistory(db.pool, other, mine.id), 'check_id', 'notFound');
  });

  it('answers what cannot be added with a sentence naming the field', async () => {
    const userId = await createUser(db.pool, 'chk');
    const refused = {
      check: async () => ({
        allowed: false as const,
        reason: '127.0.0.1:9 is not on the allow list',
        field: 'url' as const,
      }),
    };
    const cases: [Parameters<typeof assistant.addCheck>[2], assistant.AddCheckOptions, string, RegExp][] = [
      [{ what: 'ftp://x.test/f', schedule: 'every hour' }, {}, 'what', /only http and https/],
      [{ what: 'http://127.0.0.1:9/', schedule: 'every hour' }, { guard: refused }, 'url', /not on the allow list/],
      [{ what: 'https://x.test/', schedule: 'whenever you like' }, {}, 'schedule', /Try, for example/],
      [
        { what: 'news', schedule: 'every hour', notifyWhen: 'only big news' },
        {},
        'notify_when',
        /System One API \(judge server\)/,
      ],
      [
        { what: 'news', schedule: 'every hour', notifyWhen: 'only big news' },
        { judgeProblem: async () => 'no judge answers at http://127.0.0.1:1' },
        'notify_when',
        /no judge answers at http:\/\/127.0.0.1:1/,
      ],
    ];
    for (const [input, options, field, message] of cases) {
      const result = await assistant.addCheck(db.pool, userId, input, T0, options);
      expect(result, JSON.stringify(input)).toMatchObject({ ok: false, field });
      if (!result.ok) expect(result.message).toMatch(message);
    }
    expect(await assistant.listChecks(db.pool, userId)).toEqual([]);
    await expectFieldError(() => assistant.addCheck(db.pool, userId, { what: 'x' }, T0), 'schedule');
  });

  it('claims each due run once with two ticks at once, and never while the previous run is unfinished', async () => {
    const userId = await createUser(db.pool, 'chk');
    const check = await added(userId, { what: 'https://x.test/a', schedule: 'every minute' });
    const at = new Date('2036-05-01T09:01:00.2Z');
    const [a, b] = await Promise.all([assistant.claimDueChecks(db.pool, at), assistant.claimDueChecks(db.pool, at)]);
    const first = runsOf([...a, ...b], check.id);
    expect(first).toHaveLength(1);
    // Still running a minute later: no second run.
    expect(runsOf(await assistant.claimDueChecks(db.pool, new Date('2036-05-01T09:02:00Z')), check.id)).toEqual([]);
    // After the limit the run is failed (one failure row), and the next tick starts a new run.
    const late = new Date('2036-05-01T09:07:00Z');
    const next = runsOf(await assistant.claimDueChecks(db.pool, late), check.id);
    expect(next).toHaveLength(1);
    const { runs } = await assistant.checkHistory(db.pool, userId, check.id);
    expect(runs.map((run) => run.status)).toEqual(['running', 'failed']);
    expect(runs[1].error).toBe('the run did not finish within 5 minutes');
    const failures = await db.pool.query(`SELECT source, workflow FROM assistant.failures WHERE user_id = $1`, [
      userId,
    ]);
    expect(failures.rows).toEqual([{ source: 'check', workflow: `check ${check.id} (https://x.test/a)` }]);
    expect((await assistant.listChecks(db.pool, userId))[0]).toMatchObject({
      consecutiveFailures: 1,
      failingSince: late.toISOString(),
    });
  });

  it('the tick hands due checks on and counts them in its ledger', async () => {
    const userId = await createUser(db.pool, 'chk');
    const check = await added(
      userId,
      { what: 'https://x.test/tick', schedule: 'every minute' },
      new Date('2036-06-01T08:00:10Z'),
    );
    const plan = await assistant.startTick(db.pool, new Date('2036-06-01T08:01:00.4Z'));
    expect(runsOf(plan.checks, check.id)).toHaveLength(1);
    const [tick] = (await assistant.listTicks(db.pool, new Date('2036-06-01T08:01:00Z'))).filter(
      (t) => t.id === plan.tickId,
    );
    expect(tick.checksStarted).toBe(plan.checks.length);
  });

  it("reads the schedule in the user's locale (German)", async () => {
    const userId = await createUser(db.pool, 'chk-de');
    await assistant.updateUserPreferences(db.pool, userId, { locale: 'de' });
    const check = await added(userId, { what: 'https://shop.test/de', schedule: 'alle 2 Stunden' });
    expect(check.status).toBe('active');
  });
});
