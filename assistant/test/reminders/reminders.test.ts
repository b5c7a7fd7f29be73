// Reminders on a real Postgres 17: `when` read in the user's zone (DST-correct), unreadable or past times answered
// in a sentence that names what was understood, task reminders, listing and cancelling.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('reminders', () => {
  it('reads "tomorrow at 9" on the user\'s clock across the spring DST change', async () => {
    const userId = await createUser(db.pool, 'rem');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Europe/Vienna' });
    // Saturday 2026-03-28 12:00 Vienna (UTC+1); Sunday is the switch to UTC+2.
    const now = new Date('2026-03-28T11:00:00Z');
    const result = await assistant.setReminder(db.pool, userId, { text: 'call mum', when: 'tomorrow at 9' }, now);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.reminder.dueAt).toBe('2026-03-29T07:00:00.000Z');
    expect(result.reminder.due).toBe('Sun 2026-03-29 09:00 Europe/Vienna');
    expect(result.message).toContain('Sun 2026-03-29 09:00 Europe/Vienna');
  });

  it('answers an unreadable or past `when` with a sentence, and stores nothing', async () => {
    const userId = await createUser(db.pool, 'rem');
    const now = new Date('2026-06-01T10:00:00Z');
    const unreadable = await assistant.setReminder(db.pool, userId, { text: 'x', when: 'when pigs fly' }, now);
    expect(unreadable).toMatchObject({ ok: false, field: 'when' });
    expect(!unreadable.ok && unreadable.message).toContain('could not read "when pigs fly"');
    const past = await assistant.setReminder(db.pool, userId, { text: 'x', when: '2026-05-01 09:00' }, now);
    expect(!past.ok && past.message).toContain('has already passed');
    expect(await assistant.listReminders(db.pool, userId, { status: 'any' })).toEqual([]);
  });

  it('a task reminder takes the task title; listing and cancelling', async () => {
    const userId = await createUser(db.pool, 'rem');
    const task = await assistant.createTask(db.pool, userId, { title: 'File the taxes' });
    const now = new Date('2026-06-01T10:00:00Z');
    const set = await assistant.setReminder(db.pool, userId, { when: 'in 2 hours', taskId: task.id }, now);
    expect(set.ok && set.reminder).toMatchObject({ text: 'File the taxes', taskId: task.id, status: 'scheduled' });
    if (!set.ok) return;
    expect(await assistant.listReminders(db.pool, userId)).toHaveLength(1);
    const cancelled = await assistant.cancelReminder(db.pool, userId, set.reminder.id);
    expect(cancelled.status).toBe('cancelled');
    expect(await assistant.listReminders(db.pool, userId)).toHaveLength(0);
    await expectFieldError(() => assistant.cancelReminder(db.pool, userId, set.reminder.id), 'reminder_id');
    await expectFieldError(() => assistant.cancelReminder(db.pool, userId, 999999), 'reminder_id', 'notFound');
    await expectFieldError(
      () => assistant.setReminder(db.pool, userId, { when: 'in 1 hour', taskId: 999999 }, now),
      'task_id',
    );
    await expectFieldError(() => assistant.setReminder(db.pool, userId, { text: '', when: 'in 1 hour' }, now), 'text');
  });

  it("reads `when` in the user's locale (German), on their clock across the spring DST change", async () => {
    const userId = await createUser(db.pool, 'rem-de');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Europe/Vienna', locale: 'de-AT' });
    const now = new Date('2026-03-28T11:00:00Z');
    const result = await assistant.setReminder(db.pool, userId, { text: 'Mama anrufen', when: 'morgen um 9' }, now);
    expect(result.ok && result.reminder.dueAt).toBe('2026-03-29T07:00:00.000Z');
  });
});
