// The Assistant Reminders node's operations on a fresh Postgres 17, through the shared fake IExecuteFunctions:
// reminders read in the user's words, recurring actions paused, resumed and deleted, preferences; bad input named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';

import { AssistantReminders } from '../../../nodes/AssistantReminders/AssistantReminders.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'reminders-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantReminders(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output.map((item) => item.json);
}

describe('Assistant Reminders operations', () => {
  it('sets, lists and cancels a reminder; an unreadable when is an answer, not an error', async () => {
    const now = '2030-06-01T08:00:00.000Z';
    const [set] = await run([{ operation: 'setReminder', userId, text: 'call Bea', when: 'tomorrow at 9', now }]);
    expect(set).toMatchObject({ ok: true, reminder: { dueAt: '2030-06-02T09:00:00.000Z', text: 'call Bea' } });
    const [unread] = await run([{ operation: 'setReminder', userId, text: 'x', when: 'someday maybe', now }]);
    expect(unread).toMatchObject({ ok: false, field: 'when' });
    const [listed] = await run([{ operation: 'listReminders', userId, status: 'scheduled' }]);
    expect(listed.count).toBe(1);
    const id = (set.reminder as { id: number }).id;
    const [cancelled] = await run([{ operation: 'cancelReminder', userId, reminderId: id }]);
    expect(cancelled).toMatchObject({ ok: true, message: `Reminder ${id} is cancelled.` });
  });

  it('schedules an action, pauses, resumes and deletes it; a bad change names the field', async () => {
    const now = '2030-06-01T08:00:00.000Z';
    const [made] = await run([
      { operation: 'scheduleAction', userId, instruction: 'summarise my tasks', schedule: 'every day at 7:30', now },
    ]);
    expect(made).toMatchObject({ ok: true, action: { nextRunAt: '2030-06-02T07:30:00.000Z' } });
    const actionId = (made.action as { id: number }).id;
    expect((await run([{ operation: 'changeAction', userId, actionId, change: 'pause', now }]))[0]).toMatchObject({
      action: { status: 'paused' },
    });
    expect((await run([{ operation: 'changeAction', userId, actionId, change: 'resume', now }]))[0]).toMatchObject({
      action: { status: 'active' },
    });
    const [bad] = await run([{ operation: 'changeAction', userId, actionId, change: 'explode', now }], {
      continueOnFail: true,
    });
    expect(String(bad.error)).toContain('change: must be pause, resume or delete');
    await run([{ operation: 'changeAction', userId, actionId, change: 'delete', now }]);
    expect((await run([{ operation: 'listActions', userId }]))[0]).toMatchObject({ count: 0 });
  });

  it('updates preferences', async () => {
    const [prefs] = await run([
      {
        operation: 'updatePreferences',
        userId,
        timeZone: 'Europe/Vienna',
        quietHours: '22:00-07:00',
        briefingTime: '',
      },
    ]);
    expect(prefs).toMatchObject({
      ok: true,
      preferences: { timeZone: 'Europe/Vienna', quietHours: { start: '22:00', end: '07:00' }, briefingTime: null },
    });
  });

  it('updates the locale (canonicalised); a bad one names the field', async () => {
    const localeUser = (await resolveIdentity(db.pool, 'api', 'reminders-node-locale')).userId;
    const [prefs] = await run([{ operation: 'updatePreferences', userId: localeUser, locale: 'de-at' }]);
    expect(prefs).toMatchObject({ ok: true, preferences: { locale: 'de-AT' } });
    const [bad] = await run([{ operation: 'updatePreferences', userId: localeUser, locale: 'Deutsch' }], {
      continueOnFail: true,
    });
    expect(bad).toMatchObject({ field: 'locale', error: expect.stringMatching(/^locale: must be a BCP 47 locale/) });
  });
});
