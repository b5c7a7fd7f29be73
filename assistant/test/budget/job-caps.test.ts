// A job's own spending caps as one setting, ASSISTANT_BUDGET_JOBS: entries read in dollars or tokens, a bad entry
// named, and the stored job caps made exactly what the setting says on a real Postgres.
import { beforeEach, describe, expect, it } from 'vitest';
import { listCaps, setCap } from '../../src/budget/caps';
import { applyJobCaps, describeJobCaps, jobCapsFromSettings } from '../../src/budget/job-caps';
import { useAssistantDatabase } from '../database';

const read = (value: string) => jobCapsFromSettings({ ASSISTANT_BUDGET_JOBS: value });

describe('jobCapsFromSettings', () => {
  it('reads dollars as written and tokens with a tok suffix, joining the two limits of one job and period', () => {
    expect(read('heartbeat=0.20/day, action=1/day, expert=$5/month, judge=50000tok/day')).toEqual([
      { job: 'heartbeat', period: 'day', limitUsd: 0.2, limitTokens: null },
      { job: 'action', period: 'day', limitUsd: 1, limitTokens: null },
      { job: 'expert', period: 'month', limitUsd: 5, limitTokens: null },
      { job: 'judge', period: 'day', limitUsd: null, limitTokens: 50_000 },
    ]);
    expect(read(' judge = 1 / day ,judge=2_000_000 TOK/day, judge=0/month, expert:researcher=.5/day,')).toEqual([
      { job: 'judge', period: 'day', limitUsd: 1, limitTokens: 2_000_000 },
      { job: 'judge', period: 'month', limitUsd: 0, limitTokens: null },
      { job: 'expert:researcher', period: 'day', limitUsd: 0.5, limitTokens: null },
    ]);
  });

  it('gives no job caps when empty or unset', () => {
    expect(jobCapsFromSettings({})).toEqual([]);
    expect(read('')).toEqual([]);
    expect(read('  ')).toEqual([]);
  });

  it('names the setting and the bad entry', () => {
    const bad: [string, RegExp][] = [
      ['heartbeat', /"heartbeat" is not job=limit\/period, e\.g\. heartbeat=0\.20\/day/],
      ['heartbeat=1', /"heartbeat=1" is not job=limit\/period/],
      ['Heart Beat=1/day', /"Heart Beat=1\/day" is not job=limit\/period/],
      ['Heartbeat=1/day', /"Heartbeat=1\/day" names no job: "Heartbeat" is not like heartbeat, expert or expert:id/],
      ['heartbeat=1/week', /"heartbeat=1\/week" has no period: "week" is not day or month/],
      ['heartbeat=lots/day', /"heartbeat=lots\/day" has no limit: "lots" is not US dollars like 1 or 0\.50/],
      ['heartbeat=-1/day', /has no limit: "-1"/],
      ['heartbeat=off/day', /has no limit: "off"/],
      ['judge=1.5tok/day', /"judge=1\.5tok\/day" has no limit: "1\.5tok" is not .* nor tokens like 50000tok/],
      ['judge=tok/day', /has no limit: "tok"/],
      ['heartbeat=1/day, heartbeat=2/day', /"heartbeat=2\/day" repeats the dollar limit of heartbeat per day/],
      ['judge=5tok/day, judge=6tok/day', /"judge=6tok\/day" repeats the token limit of judge per day/],
    ];
    for (const [value, message] of bad) {
      expect(() => read(`action=1/day, ${value}`), value).toThrow(/^ASSISTANT_BUDGET_JOBS: /);
      expect(() => read(value), value).toThrow(message);
    }
  });

  it('describes the caps for the start log', () => {
    expect(describeJobCaps(read('heartbeat=0.20/day, judge=1/month, judge=5000tok/month'))).toBe(
      'job caps: heartbeat day $0.2, judge month $1 or 5000 tokens',
    );
    expect(describeJobCaps([])).toBe('job caps: none');
  });
});

describe('applyJobCaps', () => {
  const db = useAssistantDatabase();
  const stored = async () =>
    (await listCaps(db.pool)).map(({ scope, userId, job, period, limitUsd, limitTokens }) => ({
      scope,
      userId,
      job,
      period,
      limitUsd,
      limitTokens,
    }));
  const jobCap = (job: string, period: string, limitUsd: number | null, limitTokens: number | null = null) => ({
    scope: 'job',
    userId: null,
    job,
    period,
    limitUsd,
    limitTokens,
  });
  const instanceDay = { scope: 'instance', userId: null, job: null, period: 'day', limitUsd: 1, limitTokens: null };

  beforeEach(async () => {
    await db.pool.query('DELETE FROM assistant.budget_caps');
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 1 });
  });

  it('sets the named caps, replaces them on the next start and removes those no longer named', async () => {
    await applyJobCaps(db.pool, read('heartbeat=0.20/day, expert=5/month, judge=1/day, judge=50000tok/day'));
    expect(await stored()).toEqual([
      instanceDay,
      jobCap('heartbeat', 'day', 0.2),
      jobCap('expert', 'month', 5),
      jobCap('judge', 'day', 1, 50_000),
    ]);
    // Changed: heartbeat's limit replaced, judge's dollars dropped (tokens kept), expert's no longer named: removed.
    const applied = await applyJobCaps(db.pool, read('heartbeat=0.50/day, judge=50000tok/day, action=1/day'));
    expect(applied).toHaveLength(3);
    expect(await stored()).toEqual([
      instanceDay,
      jobCap('heartbeat', 'day', 0.5),
      jobCap('judge', 'day', null, 50_000),
      jobCap('action', 'day', 1),
    ]);
    // A job cap set some other way is removed too; empty: no job caps, the instance's left alone.
    await setCap(db.pool, { scope: 'job', job: 'briefing', period: 'month', limitUsd: 3 });
    await applyJobCaps(db.pool, read(''));
    expect(await stored()).toEqual([instanceDay]);
  });
});
