// The minute tick on a real Postgres 17 with an injected clock: a reminder fires on the first tick at or after its
// due time, exactly once even when two ticks run at once, late ones are marked; the heartbeat is due every
// heartbeat interval; a finished task's reminder is dropped.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

const outboxOf = async (userId: string) =>
  (await db.pool.query('SELECT kind, text, data, status, channel FROM assistant.outbox WHERE user_id = $1', [userId]))
    .rows;

describe('startTick', () => {
  it('fires a reminder on the first tick at or after its due time, once', async () => {
    const userId = await createUser(db.pool, 'tick');
    const set = await assistant.setReminder(
      db.pool,
      userId,
      { text: 'stretch', when: 'in 1 minute' },
      new Date('2031-01-01T10:00:30Z'),
    );
    expect(set.ok).toBe(true);
    const before = await assistant.startTick(db.pool, new Date('2031-01-01T10:01:00.2Z'));
    expect(await outboxOf(userId)).toEqual([]);
    expect(before.remindersQueued).toBe(0);
    const first = await assistant.startTick(db.pool, new Date('2031-01-01T10:02:00.1Z'));
    expect(first.remindersQueued).toBeGreaterThanOrEqual(1);
    const rows = await outboxOf(userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'reminder',
      text: '⏰ Reminder: stretch',
      status: 'stored',
      channel: 'pull',
    });
    expect(rows[0].data).toMatchObject({ late: false });
    await assistant.startTick(db.pool, new Date('2031-01-01T10:03:00Z'));
    expect(await outboxOf(userId)).toHaveLength(1);
  });

  it('two ticks at once fire each reminder once', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(db.pool, 'race')));
    for (const userId of users) {
      await assistant.setReminder(
        db.pool,
        userId,
        { text: 'race', when: 'in 5 minutes' },
        new Date('2031-02-01T10:00:00Z'),
      );
    }
    const at = new Date('2031-02-01T10:05:00Z');
    const [a, b] = await Promise.all([assistant.startTick(db.pool, at), assistant.startTick(db.pool, at)]);
    expect(a.tickId).not.toBe(b.tickId);
    for (const userId of users) expect(await outboxOf(userId)).toHaveLength(1);
    const fired = await db.pool.query(
      `SELECT count(*)::int AS n FROM assistant.reminders WHERE user_id = ANY($1::uuid[]) AND status = 'fired'`,
      [users],
    );
    expect(fired.rows[0].n).toBe(5);
  });

  it('marks a reminder fired long after its due time as late', async () => {
    const userId = await createUser(db.pool, 'late');
    await assistant.setReminder(
      db.pool,
      userId,
      { text: 'late one', when: 'in 1 minute' },
      new Date('2031-03-01T10:00:00Z'),
    );
    const tick = await assistant.startTick(db.pool, new Date('2031-03-01T10:20:00Z'));
    expect(tick.lateReminders).toBeGreaterThanOrEqual(1);
    const [row] = await outboxOf(userId);
    expect(row.data).toMatchObject({ late: true, late_seconds: 1140 });
    const reminder = (await assistant.listReminders(db.pool, userId, { status: 'any' }))[0];
    expect(reminder).toMatchObject({ status: 'fired', late: true });
  });

  it('a shorter tick period: the ledger records ticks at its step, lateness counts two of its periods', async () => {
    const userId = await createUser(db.pool, 'fast-tick');
    const setAt = new Date('2031-05-01T10:00:00Z');
    await assistant.setReminder(db.pool, userId, { text: 'soon', when: 'in 10 seconds' }, setAt);
    await assistant.setReminder(db.pool, userId, { text: 'later', when: 'in 20 seconds' }, setAt);
    const first = await assistant.startTick(db.pool, new Date('2031-05-01T10:00:15.3Z'), { tickSeconds: 5 });
    expect(first.tickAt).toBe('2031-05-01T10:00:15.000Z');
    expect(first.lateReminders).toBe(0);
    // Due at :20, fired at :35: 15 s after, more than two 5-second ticks, so late (with minute ticks it would not be).
    const second = await assistant.startTick(db.pool, new Date('2031-05-01T10:00:35.1Z'), { tickSeconds: 5 });
    expect(second.tickAt).toBe('2031-05-01T10:00:35.000Z');
    expect(second.lateReminders).toBe(1);
    const rows = await outboxOf(userId);
    expect(rows.map((row) => [row.text, row.data.late, row.data.late_seconds])).toEqual([
      ['⏰ Reminder: soon', false, 0],
      ['⏰ Reminder: later', true, 15],
    ]);
  });

  it.each([0, 7, 45, 90, 7200, 2.5])('refuses a tick period of %s seconds, naming the field', async (tickSeconds) => {
    await expect(assistant.startTick(db.pool, new Date('2031-05-02T10:00:00Z'), { tickSeconds })).rejects.toThrow(
      /^tickSeconds: must be a whole number of seconds that divides a minute/,
    );
  });

  it('drops a reminder whose task is done', async () => {
    const userId = await createUser(db.pool, 'taskrem');
    const task = await assistant.createTask(db.pool, userId, { title: 'pay rent' });
    await assistant.setReminder(
      db.pool,
      userId,
      { when: 'in 1 minute', taskId: task.id },
      new Date('2031-04-01T10:00:00Z'),
    );
    await assistant.completeTask(db.pool, userId, task.id);
    await assistant.startTick(db.pool, new Date('2031-04-01T10:01:00Z'));
    expect(await outboxOf(userId)).toEqual([]);
    expect((await assistant.listReminders(db.pool, userId, { status: 'any' }))[0].status).toBe('cancelled');
  });

  it('runs the heartbeat every heartbeat interval, on one tick only', async () => {
    await assistant.updateInstanceSettings(db.pool, { heartbeatIntervalSeconds: 300 });
    const base = Date.parse('2032-01-01T00:00:00Z');
    const beats: boolean[] = [];
    for (let minute = 0; minute <= 10; minute++) {
      // Ticks fire a little after the minute; the jitter must not push a beat to the next minute.
      const at = new Date(base + minute * 60_000 + (minute % 2 ? 150 : 900));
      const ticks = await Promise.all([assistant.startTick(db.pool, at), assistant.startTick(db.pool, at)]);
      expect(ticks.filter((t) => t.heartbeatDue).length).toBeLessThanOrEqual(1);
      beats.push(ticks.some((t) => t.heartbeatDue));
    }
    expect(beats.map((b, i) => (b ? i : -1)).filter((i) => i >= 0)).toEqual([0, 5, 10]);
    const ledger = await assistant.listTicks(db.pool, new Date(base));
    expect(ledger.filter((t) => t.heartbeat).map((t) => t.tickAt)).toEqual([
      '2032-01-01T00:00:00.000Z',
      '2032-01-01T00:05:00.000Z',
      '2032-01-01T00:10:00.000Z',
    ]);
  });
});
