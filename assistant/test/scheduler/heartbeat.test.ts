// The heartbeat's findings on a real Postgres 17: overdue and high-priority-soon tasks, one draft per user, never the
// same task twice within the cooldown, nothing during quiet hours, and nothing at all when idle.
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

beforeAll(async () => {
  await assistant.updateInstanceSettings(db.pool, { nudgeCooldownMinutes: 60, nudgeSoonHours: 24 });
});

const mine = (drafts: assistant.NudgeDraft[], userId: string) => drafts.filter((d) => d.userId === userId);

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
});
