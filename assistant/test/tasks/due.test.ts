// A task's due time on the user's clock, whatever the server's zone: `due` in words (like a reminder's `when`, a
// past time refused with parseWhen's sentence), `dueAt` as ISO 8601 (an offset-less time and a date alone in the
// user's zone). Every test pins `now` and the user's IANA zone.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { readDueAt } from '../../src/tasks/due';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

async function userIn(timeZone: string): Promise<string> {
  const userId = await createUser(db.pool, 'due');
  await assistant.updateUserPreferences(db.pool, userId, { timeZone });
  return userId;
}

describe('readDueAt', () => {
  it('reads an ISO time without an offset, and a date alone (09:00), on the clock of the zone given', () => {
    expect(readDueAt('2026-07-01T17:30', 'Europe/Vienna')?.toISOString()).toBe('2026-07-01T15:30:00.000Z');
    expect(readDueAt('2026-07-01 17:30:15.250', 'America/New_York')?.toISOString()).toBe('2026-07-01T21:30:15.250Z');
    expect(readDueAt('2026-12-01', 'Europe/Vienna')?.toISOString()).toBe('2026-12-01T08:00:00.000Z');
    // Across the spring change in Vienna: 09:00 on the Sunday of the switch is UTC+2.
    expect(readDueAt('2026-03-29', 'Europe/Vienna')?.toISOString()).toBe('2026-03-29T07:00:00.000Z');
  });

  it('takes an offset as given; empty is "not given", null clears; nonsense and impossible dates name the field', () => {
    expect(readDueAt('2026-07-01T17:30:00+05:30', 'Europe/Vienna')?.toISOString()).toBe('2026-07-01T12:00:00.000Z');
    expect(readDueAt('2026-07-01T17:30:00Z', 'Asia/Tokyo')?.toISOString()).toBe('2026-07-01T17:30:00.000Z');
    expect(readDueAt('', 'UTC')).toBeUndefined();
    expect(readDueAt(undefined, 'UTC')).toBeUndefined();
    expect(readDueAt(null, 'UTC')).toBeNull();
    expect(() => readDueAt('tomorrow', 'UTC')).toThrow(/^dueAt: must be an ISO 8601 date-time/);
    expect(() => readDueAt('2026-02-30', 'UTC')).toThrow(/^dueAt: is not a valid date-time/);
    expect(() => readDueAt('2026-02-01T24:00', 'UTC')).toThrow(/^dueAt: is not a valid date-time/);
  });
});

describe('task due times in the user zone', () => {
  it('reads `due` in words like a reminder, on the user clock across a DST change', async () => {
    const userId = await userIn('Europe/Vienna');
    // Saturday 2026-03-28 12:00 in Vienna (UTC+1); Sunday is the switch to UTC+2.
    const now = new Date('2026-03-28T11:00:00Z');
    const task = await assistant.createTask(db.pool, userId, { title: 'Call mum', due: 'tomorrow at 9' }, now);
    expect(task.dueAt).toBe('2026-03-29T07:00:00.000Z');
    const moved = await assistant.updateTask(db.pool, userId, task.id, { due: 'in 2 hours' }, now);
    expect(moved.dueAt).toBe('2026-03-28T13:00:00.000Z');
    const cleared = await assistant.updateTask(db.pool, userId, task.id, { due: 'none' }, now);
    expect(cleared.dueAt).toBeNull();
  });

  it("reads `due` in the user's locale (German)", async () => {
    const userId = await userIn('Europe/Berlin');
    await assistant.updateUserPreferences(db.pool, userId, { locale: 'de-DE' });
    const now = new Date('2026-03-28T11:00:00Z');
    const task = await assistant.createTask(db.pool, userId, { title: 'Steuer', due: 'morgen um 9' }, now);
    expect(task.dueAt).toBe('2026-03-29T07:00:00.000Z');
  });

  it('reads an offset-less ISO time and a date alone in the user zone, never the server zone', async () => {
    const userId = await userIn('America/Los_Angeles');
    const now = new Date('2026-06-01T12:00:00Z');
    const timed = await assistant.createTask(db.pool, userId, { title: 'Ship', dueAt: '2026-06-05T17:00' }, now);
    expect(timed.dueAt).toBe('2026-06-06T00:00:00.000Z');
    const dated = await assistant.createTask(db.pool, userId, { title: 'Pay', dueAt: '2026-06-05' }, now);
    expect(dated.dueAt).toBe('2026-06-05T16:00:00.000Z');
    // ISO is accepted in `due` too, read the same way.
    const words = await assistant.createTask(db.pool, userId, { title: 'Plan', due: '2026-06-05 17:00' }, now);
    expect(words.dueAt).toBe('2026-06-06T00:00:00.000Z');
    // A past ISO time in `due` is read as dueAt reads it: an overdue task can be recorded (words in the past cannot).
    const overdue = await assistant.createTask(db.pool, userId, { title: 'Tax', due: '2026-05-01' }, now);
    expect(overdue).toMatchObject({ dueAt: '2026-05-01T16:00:00.000Z', overdue: true });
    // An ISO time with its offset keeps it; a past one in dueAt stays accepted (an overdue task can be recorded).
    const late = await assistant.updateTask(db.pool, userId, timed.id, { dueAt: '2026-05-01T09:00:00+02:00' }, now);
    expect(late).toMatchObject({ dueAt: '2026-05-01T07:00:00.000Z', overdue: true });
  });

  it("refuses a past time in words or an unreadable `due` with parseWhen's sentence, naming the field, and stores nothing", async () => {
    const userId = await userIn('Europe/Berlin');
    const now = new Date('2026-06-01T10:00:00Z');
    await expectFieldError(() => assistant.createTask(db.pool, userId, { title: 'x', due: 'yesterday' }, now), 'due');
    const past = await assistant
      .createTask(db.pool, userId, { title: 'x', due: 'yesterday at 9' }, now)
      .catch((error: Error) => error);
    expect((past as Error).message).toMatch(/^due: I understood "yesterday at 9" as .* which has already passed/);
    const unreadable = await assistant
      .createTask(db.pool, userId, { title: 'x', due: 'when pigs fly' }, now)
      .catch((error: Error) => error);
    expect((unreadable as Error).message).toContain('could not read "when pigs fly"');
    await expectFieldError(
      () => assistant.createTask(db.pool, userId, { title: 'x', due: 'tomorrow', dueAt: '2026-06-02' }, now),
      'due',
    );
    expect(await assistant.listTasks(db.pool, userId, { status: 'any' })).toEqual([]);
  });

  it('a value wins over a null beside it (a tool passing both fields); nulls alone clear', async () => {
    const userId = await userIn('Asia/Tokyo');
    const now = new Date('2026-06-01T00:00:00Z');
    const task = await assistant.createTask(db.pool, userId, { title: 'Tea', due: 'tomorrow 15:00', dueAt: null }, now);
    expect(task.dueAt).toBe('2026-06-02T06:00:00.000Z');
    const kept = await assistant.updateTask(db.pool, userId, task.id, { due: '', dueAt: '' }, now);
    expect(kept.dueAt).toBe('2026-06-02T06:00:00.000Z');
    const cleared = await assistant.updateTask(db.pool, userId, task.id, { due: null }, now);
    expect(cleared.dueAt).toBeNull();
  });
});
