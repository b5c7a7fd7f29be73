// The Assistant Tasks node's operations on a real Postgres 17, driven through
// the shared fake IExecuteFunctions: parameters per item, errors that name the field and the item.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity, updateUserPreferences } from 'assistant-core';

import { AssistantTasks } from '../../../nodes/AssistantTasks/AssistantTasks.node';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'tasks-node')).userId;
});
afterAll(async () => db?.stop());

/** Runs the node over items, each with its own parameters. */
async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantTasks(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output;
}

describe('Assistant Tasks description', () => {
  it('is a tool on the postgres credential, every operation with an action', () => {
    const { description } = nodeVersion(new AssistantTasks());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([{ name: 'postgres', required: true }]);
    expect(description.icon).toBe('file:assistantTasks.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('Assistant Tasks operations', () => {
  it('create → list overdue → update (empty fields keep, "none" clears) → complete → delete', async () => {
    const details = { priority: 'urgent', dueAt: '2020-01-01T09:00:00Z', parentId: 0 };
    const [created] = await run([{ operation: 'create', userId, title: 'Call Stefan', details }]);
    expect(created.pairedItem).toEqual({ item: 0 });
    const taskId = (created.json.task as { id: number }).id;
    expect(created.json.task).toMatchObject({ title: 'Call Stefan', parentId: null });
    const [overdue] = await run([{ operation: 'list', userId, filters: { overdue: true } }]);
    expect(overdue.json).toMatchObject({ count: 1, tasks: [{ id: taskId, overdue: true }] });
    const keep = { dueAt: '', title: '', priority: '' };
    const [unchanged] = await run([{ operation: 'update', userId, taskId, updateFields: keep }]);
    expect(unchanged.json.task).toMatchObject({
      title: 'Call Stefan',
      priority: 'urgent',
      dueAt: '2020-01-01T09:00:00.000Z',
    });
    const [updated] = await run([{ operation: 'update', userId, taskId, updateFields: { dueAt: 'none' } }]);
    expect(updated.json.task).toMatchObject({ dueAt: null, overdue: false });
    const [completed] = await run([{ operation: 'complete', userId, taskId }]);
    expect(completed.json.task).toMatchObject({ status: 'done' });
    const [deleted] = await run([{ operation: 'delete', userId, taskId, withSubtasks: false }]);
    expect(deleted.json).toEqual({ deleted: [taskId] });
  });

  it("reads Due in the user's words and an offset-less Due At on the user's clock, at the Now given", async () => {
    const zoned = (await resolveIdentity(db.pool, 'api', 'tasks-node-zone')).userId;
    await updateUserPreferences(db.pool, zoned, { timeZone: 'Europe/Vienna' });
    const now = '2030-06-01T08:00:00.000Z';
    const [inWords] = await run([
      { operation: 'create', userId: zoned, title: 'Dentist', details: { due: 'tomorrow at 9' }, now },
    ]);
    expect(inWords.json.task).toMatchObject({ dueAt: '2030-06-02T07:00:00.000Z' });
    const taskId = (inWords.json.task as { id: number }).id;
    const updateFields = { dueAt: '2030-06-03T18:00' };
    const [moved] = await run([{ operation: 'update', userId: zoned, taskId, updateFields, now }]);
    expect(moved.json.task).toMatchObject({ dueAt: '2030-06-03T16:00:00.000Z' });
    const [cleared] = await run([{ operation: 'update', userId: zoned, taskId, updateFields: { due: 'none' }, now }]);
    expect(cleared.json.task).toMatchObject({ dueAt: null });
    const [past] = await run(
      [{ operation: 'update', userId: zoned, taskId, updateFields: { due: 'yesterday at 9' }, now }],
      { continueOnFail: true },
    );
    expect(past.json).toMatchObject({ field: 'due', error: expect.stringContaining('has already passed') });
  });

  it('subtasks: Parent Task ID links a task; listing by parent finds it', async () => {
    const [parent] = await run([{ operation: 'create', userId, title: 'Move office', details: {} }]);
    const parentId = (parent.json.task as { id: number }).id;
    const [child] = await run([{ operation: 'create', userId, title: 'Book van', details: { parentId } }]);
    expect(child.json.task).toMatchObject({ parentId });
    const [listed] = await run([{ operation: 'list', userId, filters: { parentId, status: 'any' } }]);
    expect(listed.json).toMatchObject({ count: 1, tasks: [{ title: 'Book van' }] });
  });

  it('fails with a NodeOperationError naming the field and the item', async () => {
    const error = await run([
      { operation: 'create', userId, title: 'fine', details: {} },
      { operation: 'create', userId, title: 'bad', details: { priority: 'asap' } },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toMatch(/^priority: must be one of low, medium, high, urgent/);
    expect((error as NodeOperationError).description).toBe('Check the "priority" parameter.');
    expect((error as NodeOperationError).context.itemIndex).toBe(1);
  });

  it('with continueOnFail, reports each failing item as {error, field} and carries on', async () => {
    const out = await run(
      [
        { operation: 'get', userId, taskId: 987654 },
        { operation: 'get', userId: '', taskId: 1 },
      ],
      { continueOnFail: true },
    );
    expect(out[0].json).toMatchObject({ field: 'taskId' });
    expect(out[1].json).toMatchObject({ field: 'userId', error: expect.stringMatching(/^userId: /) });
    expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
  });
});

describe('Assistant Tasks router', () => {
  const run1 = async (parameters: Parameters) => (await run([parameters]))[0].json;
  // A user of its own, so the counts are this test's.
  let userId: string;
  beforeAll(async () => {
    userId = (await resolveIdentity(db.pool, 'api', 'tasks-router')).userId;
  });

  it('reaches every operation through the router', async () => {
    const created = await run1({ operation: 'create', userId, title: 'Routed', details: {} });
    const taskId = (created.task as { id: number }).id;
    expect(await run1({ operation: 'get', userId, taskId })).toMatchObject({ task: { id: taskId } });
    const updateFields = { title: 'Renamed' };
    expect(await run1({ operation: 'update', userId, taskId, updateFields })).toMatchObject({
      task: { title: 'Renamed' },
    });
    expect(await run1({ operation: 'complete', userId, taskId })).toMatchObject({ task: { status: 'done' } });
    expect(await run1({ operation: 'list', userId, filters: { status: 'any' } })).toMatchObject({ count: 1 });
    expect(await run1({ operation: 'delete', userId, taskId, withSubtasks: false })).toEqual({ deleted: [taskId] });
  });
});
