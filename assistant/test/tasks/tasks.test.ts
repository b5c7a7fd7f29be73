// Tasks on a real Postgres 17: CRUD, subtasks, "overdue" and "due today" in the user's time zone, isolation.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('tasks', () => {
  it('creates, lists, updates, completes and deletes', async () => {
    const userId = await newUser('tasks');
    const task = await assistant.createTask(db.pool, userId, {
      title: 'File taxes',
      priority: 'high',
      dueAt: '2030-04-30T22:00:00Z',
      tags: ['admin'],
    });
    expect(task).toMatchObject({
      title: 'File taxes',
      status: 'open',
      priority: 'high',
      dueAt: '2030-04-30T22:00:00.000Z',
      overdue: false,
      tags: ['admin'],
    });
    const sub = await assistant.createTask(db.pool, userId, { title: 'Collect receipts', parentId: task.id });
    expect(sub.parentId).toBe(task.id);
    expect((await assistant.listTasks(db.pool, userId, { parentId: task.id })).map((t) => t.id)).toEqual([sub.id]);
    const updated = await assistant.updateTask(db.pool, userId, task.id, {
      priority: 'urgent',
      notes: 'Use the new form',
      dueAt: null,
    });
    expect(updated).toMatchObject({ priority: 'urgent', notes: 'Use the new form', dueAt: null });
    const done = await assistant.completeTask(db.pool, userId, sub.id);
    expect(done.status).toBe('done');
    expect(done.completedAt).not.toBeNull();
    expect((await assistant.listTasks(db.pool, userId)).map((t) => t.id)).toEqual([task.id]);
    expect((await assistant.listTasks(db.pool, userId, { status: 'done' })).map((t) => t.id)).toEqual([sub.id]);
    await expectFieldError(() => assistant.deleteTask(db.pool, userId, task.id), 'taskId');
    expect(await assistant.deleteTask(db.pool, userId, task.id, true)).toEqual({
      deleted: expect.arrayContaining([task.id, sub.id]),
    });
    expect(await assistant.listTasks(db.pool, userId, { status: 'any' })).toEqual([]);
  });

  it('derives "overdue" and "due today" in the user\'s time zone', async () => {
    const userId = await newUser('due');
    const asOf = new Date('2026-03-10T23:30:00Z');
    const morning = await assistant.createTask(db.pool, userId, {
      title: 'Tomorrow morning (UTC)',
      dueAt: '2026-03-11T08:00:00Z',
    });
    const evening = await assistant.createTask(db.pool, userId, {
      title: 'This evening (UTC)',
      dueAt: '2026-03-10T20:00:00Z',
      priority: 'urgent',
    });
    const doneLate = await assistant.createTask(db.pool, userId, {
      title: 'Done but late',
      dueAt: '2026-03-01T08:00:00Z',
      status: 'done',
    });
    await assistant.createTask(db.pool, userId, { title: 'No due time' });
    const ids = (tasks: assistant.Task[]) => tasks.map((t) => t.id);

    expect(ids(await assistant.listTasks(db.pool, userId, { overdue: true, asOf }))).toEqual([evening.id]);
    expect(ids(await assistant.listTasks(db.pool, userId, { dueToday: true, asOf }))).toEqual([evening.id]);
    expect(
      ids(await assistant.listTasks(db.pool, userId, { dueToday: true, asOf, timeZone: 'Europe/Vienna' })),
    ).toEqual([morning.id]);
    expect(
      ids(await assistant.listTasks(db.pool, userId, { dueToday: true, asOf, timeZone: 'America/Los_Angeles' })),
    ).toEqual([evening.id]);
    await assistant.updateUserSettings(db.pool, userId, { timeZone: 'Asia/Tokyo' });
    // 08:30 on 11 March in Tokyo: both the "evening" (05:00 local) and "morning" (17:00 local) tasks are due today.
    expect(ids(await assistant.listTasks(db.pool, userId, { dueToday: true, asOf }))).toEqual([evening.id, morning.id]);
    expect(ids(await assistant.listTasks(db.pool, userId, { priority: 'urgent', asOf }))).toEqual([evening.id]);
    const all = await assistant.listTasks(db.pool, userId, { status: 'any', asOf });
    expect(all.find((t) => t.id === doneLate.id)?.overdue).toBe(false);
    expect(all.find((t) => t.id === evening.id)?.overdue).toBe(true);
    const columns = await db.pool.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'assistant' AND table_name = 'tasks'`,
    );
    expect(columns.rows.map((r) => r.column_name)).not.toContain('overdue');
  });

  it('keeps tasks per user and rejects bad input, naming the field', async () => {
    const alice = await newUser('task-alice');
    const bob = await newUser('task-bob');
    const task = await assistant.createTask(db.pool, alice, { title: 'Private' });
    await expectFieldError(() => assistant.getTask(db.pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.completeTask(db.pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.deleteTask(db.pool, bob, task.id), 'taskId', 'notFound');
    await expectFieldError(() => assistant.createTask(db.pool, bob, { title: 'Sub', parentId: task.id }), 'parentId');
    expect(await assistant.listTasks(db.pool, bob, { status: 'any' })).toEqual([]);
    await expectFieldError(() => assistant.createTask(db.pool, alice, { title: '' }), 'title');
    await expectFieldError(() => assistant.createTask(db.pool, alice, { title: 'x', priority: 'asap' }), 'priority');
    await expectFieldError(() => assistant.createTask(db.pool, alice, { title: 'x', dueAt: 'tomorrow' }), 'dueAt');
    await expectFieldError(() => assistant.listTasks(db.pool, alice, { status: 'later' }), 'status');
    await expectFieldError(() => assistant.listTasks(db.pool, alice, { overdue: 'yes' }), 'overdue');
    await expectFieldError(
      () => assistant.listTasks(db.pool, alice, { dueToday: true, timeZone: 'Nowhere/Town' }),
      'timeZone',
    );
    await expectFieldError(() => assistant.updateTask(db.pool, alice, task.id, { parentId: task.id }), 'parentId');
    const child = await assistant.createTask(db.pool, alice, { title: 'Child', parentId: task.id });
    await expectFieldError(() => assistant.updateTask(db.pool, alice, task.id, { parentId: child.id }), 'parentId');
  });
});
