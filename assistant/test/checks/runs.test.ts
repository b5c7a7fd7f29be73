// A check run's steps on a real Postgres 17: the baseline and "unchanged" say nothing; a delta notifies once, or
// goes through the Judge gate (probability and threshold recorded beside the decision); a gated run without the
// Judge's answer fails and keeps the delta for the next run (or, refused by a spending cap, is skipped for budget and
// keeps it without failing); a failure streak writes one failure row.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

let clock = new Date('2036-07-01T09:00:00Z').getTime();
const tick = () => new Date((clock += 60_000));

async function setUp(input: Partial<Parameters<typeof assistant.addCheck>[2]> = {}) {
  const userId = await createUser(db.pool, 'run');
  const made = await assistant.addCheck(
    db.pool,
    userId,
    { what: 'https://x.test/page', schedule: 'every minute', ...input },
    new Date(clock),
    { judgeProblem: async () => null },
  );
  if (!made.ok) throw new Error(made.message);
  return { userId, checkId: made.check.id };
}

/** Claims this check's next run and records `text` as the page seen. */
async function observe(checkId: number, observation: (check: assistant.CheckToRun) => assistant.Observation) {
  const now = tick();
  const run = (await assistant.claimDueChecks(db.pool, now)).find((due) => due.checkId === checkId);
  if (!run) throw new Error('the check was not due');
  const check = await assistant.loadCheckRun(db.pool, run.runId);
  return await assistant.recordObservation(db.pool, check, observation(check), now);
}

const page =
  (text: string) =>
  (check: assistant.CheckToRun): assistant.Observation => {
    const { state, delta } = assistant.compareSnapshot({ kind: 'page', text }, check.state);
    return { ok: true, state, delta };
  };

const outbox = async (userId: string) =>
  (await db.pool.query(`SELECT kind, text, data FROM assistant.outbox WHERE user_id = $1 ORDER BY id`, [userId])).rows;

describe('check runs', () => {
  it('baseline, unchanged, changed → one notification, then unchanged again', async () => {
    const { userId, checkId } = await setUp();
    expect(await observe(checkId, page('Price 10'))).toMatchObject({ outcome: 'baseline', judge: null });
    expect(await observe(checkId, page('Price 10'))).toMatchObject({ outcome: 'unchanged' });
    const changed = await observe(checkId, page('Price 12'));
    expect(changed).toMatchObject({ outcome: 'changed', judge: null });
    const finished = await assistant.finishCheckRun(db.pool, changed.runId, {}, tick());
    expect(finished).toMatchObject({ status: 'notified', notified: true, judgeProbability: null });
    // Finishing again changes nothing.
    expect(await assistant.finishCheckRun(db.pool, changed.runId, {}, tick())).toMatchObject({ status: 'notified' });
    expect(await observe(checkId, page('Price 12'))).toMatchObject({ outcome: 'unchanged' });
    const messages = await outbox(userId);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ kind: 'check', data: { check_id: checkId, run_id: changed.runId } });
    expect(messages[0].text).toBe(
      `🔔 Check ${checkId} (https://x.test/page): The page changed: 1 line added, 1 removed.\n+ Price 12\n− Price 10`,
    );
    const { runs } = await assistant.checkHistory(db.pool, userId, checkId);
    expect(runs.map((run) => run.status)).toEqual(['unchanged', 'notified', 'unchanged', 'baseline']);
  });

  it('the Judge gate: notify at or above the threshold, silent below, both recorded; no answer keeps the delta', async () => {
    const { userId, checkId } = await setUp({ notifyWhen: 'only if the price drops', notifyThreshold: 0.6 });
    await observe(checkId, page('Price 10'));
    const up = await observe(checkId, page('Price 12'));
    expect(up.judge).toEqual({
      state:
        'Watched: https://x.test/page\nWhat changed:\nThe page changed: 1 line added, 1 removed.\n+ Price 12\n− Price 10',
      question:
        'The user asked to be told about a change only if: "only if the price drops". Does this change meet that condition?',
      threshold: 0.6,
    });
    expect(await assistant.finishCheckRun(db.pool, up.runId, { probability: 0.2 }, tick())).toMatchObject({
      status: 'silenced',
      judgeProbability: 0.2,
      judgeThreshold: 0.6,
    });
    // The Judge is down: the run fails, the delta stays, and the next run sees it again.
    const down = await observe(checkId, page('Price 8'));
    expect(
      await assistant.finishCheckRun(db.pool, down.runId, { judgeError: 'connect ECONNREFUSED' }, tick()),
    ).toMatchObject({
      status: 'failed',
      error: 'the Judge could not be asked whether the change meets "only if the price drops": connect ECONNREFUSED',
    });
    const again = await observe(checkId, page('Price 8'));
    expect(again.outcome).toBe('changed');
    expect(await assistant.finishCheckRun(db.pool, again.runId, { probability: '0.6' }, tick())).toMatchObject({
      status: 'notified',
      judgeProbability: 0.6,
    });
    expect((await outbox(userId)).map((m) => m.data.judge_probability)).toEqual([0.6]);
    const next = await observe(checkId, page('Price 1'));
    await expectFieldError(
      () => assistant.finishCheckRun(db.pool, next.runId, { probability: 2 }, tick()),
      'probability',
    );
  });

  it('a spending cap refusing the Judge skips the run for budget: the change is kept, no check failure is counted', async () => {
    const { userId, checkId } = await setUp({ notifyWhen: 'only if the price drops' });
    await observe(checkId, page('Price 10'));
    const refusal = 'The System One server answered 402: The daily budget of job check is spent; it resets at 00:00.';
    for (let i = 0; i < 3; i++) {
      const refused = await observe(checkId, page('Price 8'));
      expect(refused.outcome).toBe('changed');
      const skipped = await assistant.finishCheckRun(
        db.pool,
        refused.runId,
        { judgeError: refusal, judgeErrorType: 'budget_exceeded' },
        tick(),
      );
      expect(skipped).toMatchObject({ status: 'skipped', notified: false, error: `skipped for budget: ${refusal}` });
      // Finishing again changes nothing.
      expect(await assistant.finishCheckRun(db.pool, refused.runId, { probability: 0.9 }, tick())).toMatchObject({
        status: 'skipped',
      });
    }
    const [check] = await assistant.listChecks(db.pool, userId);
    expect(check).toMatchObject({ status: 'active', consecutiveFailures: 0, lastError: null, failingSince: null });
    // No failure of the check: failure awareness names the skipped runs, one streak of three.
    const failures = await db.pool.query(`SELECT source, count FROM assistant.failures WHERE user_id = $1`, [userId]);
    expect(failures.rows).toEqual([{ source: 'skipped', count: 3 }]);
    expect(await outbox(userId)).toEqual([]);
    // The cap's window reset: the next run finds the same change and the Judge decides it.
    const again = await observe(checkId, page('Price 8'));
    expect(again.outcome).toBe('changed');
    expect(await assistant.finishCheckRun(db.pool, again.runId, { probability: 0.9 }, tick())).toMatchObject({
      status: 'notified',
    });
    const { runs } = await assistant.checkHistory(db.pool, userId, checkId);
    expect(runs.map((run) => run.status)).toEqual(['notified', 'skipped', 'skipped', 'skipped', 'baseline']);
    expect(runs[1].error).toBe(`skipped for budget: ${refusal}`);
  });

  it('an unknown or empty Judge error type fails the run as before, counting a failure', async () => {
    const { userId, checkId } = await setUp({ notifyWhen: 'only if the price drops' });
    await observe(checkId, page('Price 10'));
    for (const judgeErrorType of ['', 'backend_error', undefined, ' Budget_Exceeded ']) {
      const down = await observe(checkId, page('Price 8'));
      const finished = await assistant.finishCheckRun(
        db.pool,
        down.runId,
        { judgeError: 'The System One server answered 502: failed', judgeErrorType },
        tick(),
      );
      expect(finished).toMatchObject({
        status: 'failed',
        error:
          'the Judge could not be asked whether the change meets "only if the price drops": ' +
          'The System One server answered 502: failed',
      });
      // (The observation that found the change was healthy; the Judge's failure starts the streak again.)
      expect((await assistant.listChecks(db.pool, userId))[0]).toMatchObject({
        consecutiveFailures: 1,
        lastError: finished.error,
      });
    }
    const failures = await db.pool.query(`SELECT 1 FROM assistant.failures WHERE user_id = $1`, [userId]);
    expect(failures.rowCount).toBeGreaterThan(0);
  });

  it('a failure streak writes one failure row and shows on the check until a run succeeds', async () => {
    const { userId, checkId } = await setUp();
    await observe(checkId, page('a'));
    for (let i = 0; i < 3; i++) {
      expect(
        await observe(checkId, () => ({ ok: false, error: 'https://x.test/page answered HTTP 500' })),
      ).toMatchObject({
        outcome: 'failed',
      });
    }
    await observe(checkId, () => ({ ok: false, error: 'https://x.test/page did not answer within 20 s' }));
    const [failing] = await assistant.listChecks(db.pool, userId);
    expect(failing).toMatchObject({
      consecutiveFailures: 4,
      lastError: 'https://x.test/page did not answer within 20 s',
    });
    const rows = await db.pool.query(`SELECT message FROM assistant.failures WHERE user_id = $1 ORDER BY id`, [userId]);
    expect(rows.rows.map((row) => row.message)).toEqual([
      'https://x.test/page answered HTTP 500',
      'https://x.test/page did not answer within 20 s',
    ]);
    expect(await observe(checkId, page('a'))).toMatchObject({ outcome: 'unchanged' });
    expect((await assistant.listChecks(db.pool, userId))[0]).toMatchObject({
      consecutiveFailures: 0,
      lastError: null,
      failingSince: null,
    });
  });
});
