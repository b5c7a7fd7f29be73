// The heartbeat's findings on a real Postgres 17: overdue and high-priority-soon tasks, urgent ones without a due date
// (every urgentNudgeHours), one draft per user, never the same task twice within the cooldown, nothing during quiet
// hours, and nothing at all when idle. The clock is injected; the users' zones are pinned.
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

beforeAll(async () => {
  await assistant.updateInstanceSettings(db.pool, { nudgeCooldownMinutes: 60, nudgeSoonHours: 24 });
});

const mine = (drafts: assistant.NudgeDraft[], userId: string) => drafts.filter((d) => d.userId === userId);
const titles = (drafts: assistant.NudgeDraft[]) => drafts.flatMap((d) => d.tasks.map((t) => t.title));
const hoursAfter = (at: Date, hours: number) => new Date(at.getTime() + hours * 3_600_000);

/** An urgent task without a due date, last changed at `changedAt`. */
async function undatedUrgent(userId: string, title: string, changedAt: Date): Promise<number> {
  const task = await assistant.createTask(db.pool, userId, { title, priority: 'urgent' });
  await db.pool.query('UPDATE assistant.tasks SET created_at = $2, updated_at = $2 WHERE id = $1', [
    task.id,
    changedAt,
  ]);
  return task.id;
}

describe('findNudges', () => {
  it('is empty when nothing is overdue or urgent', async () => {
    const userId = await createUser(db.pool, 'idle');
    await assistant.createTask(db.pool, userId, { title: 'someday', dueAt: '2040-01-01T00:00:00Z', priority: 'low' });
    expect(mine(await assistant.findNudges(db.pool, new Date('2035-01-01T00:00:00Z'), 1), userId)).toEqual([]);
  });

  it('nudges an overdue task and a high-priority one due soon, then not again within the cooldown', async () => {
    const userId = await createUser(db.pool, 'nudge');
    const overdue = await assistant.createTask(db.pool, userId, {
      title: 'Send invoice',
      dueAt: '2035-02-01T09:00:00Z',
    });
    await assistant.createTask(db.pool, userId, {
      title: 'Board deck',
      dueAt: '2035-02-01T20:00:00Z',
      priority: 'urgent',
    });
    await assistant.createTask(db.pool, userId, { title: 'Low later', dueAt: '2035-02-01T20:00:00Z', priority: 'low' });
    const now = new Date('2035-02-01T10:00:00Z');
    const [draft] = mine(await assistant.findNudges(db.pool, now, 7), userId);
    expect(draft.tasks.map((t) => [t.title, t.overdue])).toEqual([
      ['Send invoice', true],
      ['Board deck', false],
    ]);
    expect(draft.dedupeKey).toBe(`nudge:${userId}:7`);
    expect(draft.draft).toContain('Send invoice');
    expect(mine(await assistant.findNudges(db.pool, new Date('2035-02-01T10:30:00Z'), 8), userId)).toEqual([]);
    const later = mine(await assistant.findNudges(db.pool, new Date('2035-02-01T11:01:00Z'), 9), userId);
    expect(later[0].tasks.map((t) => t.id)).toContain(overdue.id);
  });

  it("keeps quiet during the user's quiet hours and nudges after them", async () => {
    const userId = await createUser(db.pool, 'quiet');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'America/New_York', quietHours: '22:00-07:00' });
    await assistant.createTask(db.pool, userId, { title: 'Overdue thing', dueAt: '2035-03-01T12:00:00Z' });
    // 23:00 in New York.
    expect(mine(await assistant.findNudges(db.pool, new Date('2035-03-02T04:00:00Z'), 10), userId)).toEqual([]);
    // 07:30 in New York.
    expect(mine(await assistant.findNudges(db.pool, new Date('2035-03-02T12:30:00Z'), 11), userId)).toHaveLength(1);
  });

  it('nudges an urgent task without a due date once it was left alone for urgentNudgeHours, then daily', async () => {
    const userId = await createUser(db.pool, 'urgent');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Europe/Vienna' });
    const now = new Date('2036-01-10T12:00:00Z');
    await undatedUrgent(userId, 'Renew passport', hoursAfter(now, -48));
    await undatedUrgent(userId, 'Just added', hoursAfter(now, -1));
    await assistant.createTask(db.pool, userId, { title: 'High, undated', priority: 'high' });
    const [draft] = mine(await assistant.findNudges(db.pool, now, 21), userId);
    expect(draft.tasks).toEqual([
      { id: expect.any(Number), title: 'Renew passport', priority: 'urgent', due: null, overdue: false },
    ]);
    expect(draft.draft).toContain('• Renew passport (urgent) — no due date yet');
    // Past the cooldown (60 min) but within the day: nothing; a day later both, the new one left alone long enough.
    expect(mine(await assistant.findNudges(db.pool, hoursAfter(now, 2), 22), userId)).toEqual([]);
    const nextDay = mine(await assistant.findNudges(db.pool, hoursAfter(now, 24.1), 23), userId);
    expect(titles(nextDay)).toEqual(['Renew passport', 'Just added']);
  });

  it("keeps urgent nudges within the user's quiet hours and the cooldown; 0 turns them off", async () => {
    const userId = await createUser(db.pool, 'urgent-quiet');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'America/New_York', quietHours: '22:00-07:00' });
    const night = new Date('2037-01-15T04:00:00Z'); // 23:00 in New York
    await undatedUrgent(userId, 'Call the bank', hoursAfter(night, -30));
    expect(mine(await assistant.findNudges(db.pool, night, 31), userId)).toEqual([]);
    const morning = new Date('2037-01-15T12:30:00Z'); // 07:30 in New York
    expect(titles(mine(await assistant.findNudges(db.pool, morning, 32), userId))).toEqual(['Call the bank']);
    // Hourly urgent nudges still wait for a 3-hour cooldown.
    await assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: 1, nudgeCooldownMinutes: 180 });
    try {
      expect(mine(await assistant.findNudges(db.pool, hoursAfter(morning, 1.1), 33), userId)).toEqual([]);
      const later = mine(await assistant.findNudges(db.pool, hoursAfter(morning, 3.1), 34), userId);
      expect(titles(later)).toEqual(['Call the bank']);
      await assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: 0 });
      expect(mine(await assistant.findNudges(db.pool, hoursAfter(morning, 48), 35), userId)).toEqual([]);
    } finally {
      await assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: 24, nudgeCooldownMinutes: 60 });
    }
  });
});
