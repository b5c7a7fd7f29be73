// The Assistant Scheduler node's operations on a fresh Postgres 17: a tick's jobs as items (always one 'deliver'),
// the heartbeat's nudges as items (none when idle), briefing facts, and the ledger closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, resolveIdentity, scheduleAction, updateInstanceSettings } from 'assistant-core';

import { AssistantScheduler } from '../../../nodes/AssistantScheduler/AssistantScheduler.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'scheduler-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantScheduler(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output.map((item) => item.json);
}

describe('Assistant Scheduler operations', () => {
  it('a tick hands on one item per job; an idle heartbeat finds no nudges (no items)', async () => {
    await updateInstanceSettings(db.pool, { heartbeatIntervalSeconds: 300 });
    const made = await scheduleAction(
      db.pool,
      userId,
      { instruction: 'x', schedule: 'every 5 minutes' },
      new Date('2031-01-01T00:00:00Z'),
    );
    expect(made.ok).toBe(true);
    const jobs = await run([{ operation: 'startTick', now: '2031-01-01T00:05:00.100Z' }]);
    expect(jobs.map((j) => j.job)).toEqual(['deliver', 'heartbeat', 'action']);
    expect(jobs[2]).toMatchObject({ userId, instruction: 'x', late: false });
    const again = await run([{ operation: 'startTick', now: '2031-01-01T00:06:00.100Z' }]);
    expect(again.map((j) => j.job)).toEqual(['deliver']);
    expect(await run([{ operation: 'findNudges', tickId: jobs[0].tickId, now: '2031-01-01T00:05:00Z' }])).toEqual([]);
    const [closed] = await run([
      { operation: 'finishTick', tickId: jobs[0].tickId, delivered: '2', failures: '1', now: '' },
    ]);
    expect(closed).toEqual({ tickId: jobs[0].tickId, delivered: 2, failures: 1 });
  });

  it('nudges as one item per user; briefing facts; a bad now names the field', async () => {
    await createTask(db.pool, userId, { title: 'Overdue report', dueAt: '2031-02-01T00:00:00Z' });
    const nudges = await run([{ operation: 'findNudges', tickId: 42, now: '2031-02-02T12:00:00Z' }]);
    expect(nudges).toHaveLength(1);
    expect(nudges[0]).toMatchObject({ userId, tickId: 42, dedupeKey: `nudge:${userId}:42` });
    const [facts] = await run([{ operation: 'gatherBriefing', userId, now: '2031-02-02T06:00:00Z' }]);
    expect(facts.overdue).toEqual([expect.objectContaining({ title: 'Overdue report' })]);
    const [bad] = await run([{ operation: 'startTick', now: 'yesterday-ish' }], { continueOnFail: true });
    expect(String(bad.error)).toContain('now: must be an ISO 8601 date-time');
  });

  it('Tick Seconds: the ledger records the tick at that step; a period that fits no minute names the field', async () => {
    const [deliver] = await run([{ operation: 'startTick', now: '2031-03-01T00:00:07.4Z', tickSeconds: 5 }]);
    expect(deliver).toMatchObject({ job: 'deliver', tickAt: '2031-03-01T00:00:05.000Z' });
    const [minute] = await run([{ operation: 'startTick', now: '2031-03-01T00:00:31Z' }]);
    expect(minute).toMatchObject({ job: 'deliver', tickAt: '2031-03-01T00:01:00.000Z' });
    const [bad] = await run([{ operation: 'startTick', now: '', tickSeconds: 7 }], { continueOnFail: true });
    expect(String(bad.error)).toContain('tickSeconds: must be a whole number of seconds');
  });
});
