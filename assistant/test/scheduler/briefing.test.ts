// Briefings on a real Postgres 17: claimed once per local day at the user's chosen local time (in their zone), the
// content gathered from data (today's tasks and reminders, overdue tasks).
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

const mine = (due: assistant.DueBriefing[], userId: string) => due.filter((b) => b.userId === userId);

describe('briefings', () => {
  it('is due once per local day, at the local time chosen', async () => {
    const userId = await createUser(db.pool, 'brief');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Asia/Tokyo', briefingTime: '07:30' });
    // 07:29 and 07:30 in Tokyo (UTC+9).
    expect(mine(await assistant.claimDueBriefings(db.pool, new Date('2038-01-04T22:29:00Z')), userId)).toEqual([]);
    expect(mine(await assistant.claimDueBriefings(db.pool, new Date('2038-01-04T22:30:00Z')), userId)).toEqual([
      { userId, localDate: '2038-01-05', late: false },
    ]);
    expect(mine(await assistant.claimDueBriefings(db.pool, new Date('2038-01-04T23:30:00Z')), userId)).toEqual([]);
    // The next day, 3 hours late (the system was down): still once, marked late.
    expect(mine(await assistant.claimDueBriefings(db.pool, new Date('2038-01-06T01:30:00Z')), userId)).toEqual([
      { userId, localDate: '2038-01-06', late: true },
    ]);
  });

  it("gathers today's tasks, overdue ones and today's reminders", async () => {
    const userId = await createUser(db.pool, 'brief');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Europe/Berlin' });
    const now = new Date('2038-02-01T06:00:00Z'); // 07:00 Berlin
    await assistant.createTask(db.pool, userId, { title: 'Dentist', dueAt: '2038-02-01T14:00:00Z', priority: 'high' });
    await assistant.createTask(db.pool, userId, { title: 'Old report', dueAt: '2038-01-30T10:00:00Z' });
    await assistant.createTask(db.pool, userId, { title: 'Tomorrow thing', dueAt: '2038-02-02T10:00:00Z' });
    await assistant.setReminder(db.pool, userId, { text: 'water plants', when: 'in 3 hours' }, now);
    const facts = await assistant.gatherBriefing(db.pool, userId, now);
    expect(facts.tasksDueToday.map((t) => t.title)).toEqual(['Dentist']);
    expect(facts.overdue.map((t) => t.title)).toEqual(['Old report']);
    expect(facts.remindersToday.map((r) => r.text)).toEqual(['water plants']);
    expect(facts.draft).toContain('Dentist (high, 15:00)');
    expect(facts.draft).not.toContain('Tomorrow thing');
  });
});
