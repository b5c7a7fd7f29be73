// Recurring actions on a real Postgres 17: scheduled in the user's zone, claimed once per due run (two ticks at
// once included), paused and resumed, missed runs caught up once with a note, unreadable schedules answered.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const runsOf = (runs: assistant.DueActionRun[], actionId: number) => runs.filter((r) => r.actionId === actionId);

describe('scheduled actions', () => {
  it('"every minute" runs on consecutive ticks, once each even with two ticks at once', async () => {
    const userId = await createUser(db.pool, 'act');
    const made = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'say hi', schedule: 'every minute' },
      new Date('2036-01-01T10:00:20Z'),
    );
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.action.nextRunAt).toBe('2036-01-01T10:01:00.000Z');
    const at1 = new Date('2036-01-01T10:01:00.3Z');
    const [a, b] = await Promise.all([
      assistant.claimDueActions(db.pool, at1),
      assistant.claimDueActions(db.pool, at1),
    ]);
    expect(runsOf([...a, ...b], made.action.id)).toHaveLength(1);
    const second = runsOf(await assistant.claimDueActions(db.pool, new Date('2036-01-01T10:02:00.2Z')), made.action.id);
    expect(second).toMatchObject([{ instruction: 'say hi', late: false, note: null }]);
  });

  it("weekday 7:30 in the user's zone; paused actions do not run; resumed ones skip what fell due", async () => {
    const userId = await createUser(db.pool, 'act');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'America/New_York' });
    const made = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'news', schedule: 'every weekday at 7:30' },
      new Date('2036-03-06T12:00:00Z'), // Thursday 07:00 EST
    );
    if (!made.ok) throw new Error(made.message);
    expect(made.action.nextRun).toBe('Thu 2036-03-06 07:30 America/New_York');
    await assistant.pauseAction(db.pool, userId, made.action.id);
    expect(runsOf(await assistant.claimDueActions(db.pool, new Date('2036-03-10T12:00:00Z')), made.action.id)).toEqual(
      [],
    );
    const resumed = await assistant.resumeAction(db.pool, userId, made.action.id, new Date('2036-03-10T12:00:00Z'));
    // Monday 2036-03-10 is after the US switch to EDT (UTC-4): 07:30 local is 11:30 UTC; it is 08:00 local now.
    expect(resumed.nextRun).toBe('Tue 2036-03-11 07:30 America/New_York');
    expect(resumed.nextRunAt).toBe('2036-03-11T11:30:00.000Z');
    await expectFieldError(() => assistant.resumeAction(db.pool, userId, made.action.id, new Date()), 'action_id');
    await assistant.deleteAction(db.pool, userId, made.action.id);
    expect(await assistant.listActions(db.pool, userId)).toEqual([]);
  });

  it('after downtime: one late run with a note, not one per missed run', async () => {
    const userId = await createUser(db.pool, 'act');
    const made = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'check', schedule: 'every 10 minutes' },
      new Date('2036-05-01T10:00:00Z'),
    );
    if (!made.ok) throw new Error(made.message);
    const runs = runsOf(await assistant.claimDueActions(db.pool, new Date('2036-05-01T11:07:00Z')), made.action.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].late).toBe(true);
    expect(runs[0].note).toContain('Missed 6 scheduled runs');
    const listed = (await assistant.listActions(db.pool, userId))[0];
    expect(listed.nextRunAt).toBe('2036-05-01T11:10:00.000Z');
  });

  it('answers an unreadable schedule with a sentence', async () => {
    const userId = await createUser(db.pool, 'act');
    const bad = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'x', schedule: 'now and then' },
      new Date(),
    );
    expect(bad).toMatchObject({ ok: false, field: 'schedule' });
    expect(!bad.ok && bad.message).toContain('Try, for example');
    await expectFieldError(
      () => assistant.scheduleAction(db.pool, userId, { instruction: '', schedule: 'every hour' }, new Date()),
      'instruction',
    );
  });

  it("reads the schedule in the user's locale (German)", async () => {
    const userId = await createUser(db.pool, 'act-de');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Europe/Vienna', locale: 'de-AT' });
    // Wednesday 2026-03-25; the next Monday is after the spring change (UTC+2).
    const input = { instruction: 'Aufgaben zusammenfassen', schedule: 'jeden Montag um 9' };
    const made = await assistant.scheduleAction(db.pool, userId, input, new Date('2026-03-25T10:00:00Z'));
    expect(made.ok && made.action.nextRunAt).toBe('2026-03-30T07:00:00.000Z');
  });
});
