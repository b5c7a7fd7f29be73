// Tasks: title, notes, status, priority, due time, parent, tags. "Overdue" and "due today" are derived in the
// query (the latter in the user's time zone), never stored. The due time is read on the user's clock (due.ts).
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserSettings } from '../settings/settings';
import { readTaskDue, type TaskDueInput } from './due';
import {
  optionalEnum,
  optionalInt,
  optionalText,
  requirePositiveInt,
  requireText,
  requireTimeZone,
  requireUserId,
  stringList,
} from '../validate';

export const TASK_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
/** List filter values: a status, "active" (open or in progress) or "any". */
export const TASK_STATUS_FILTERS = ['active', 'any', ...TASK_STATUSES] as const;

export interface Task {
  id: number;
  title: string;
  notes: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  dueAt: string | null;
  parentId: number | null;
  tags: string[];
  overdue: boolean;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface TaskInput extends TaskDueInput {
  title?: unknown;
  notes?: unknown;
  status?: unknown;
  priority?: unknown;
  parentId?: unknown;
  tags?: unknown;
}

/** The SELECT list of a task, with "overdue" derived against $asOf (a parameter index). */
const taskColumns = (asOf: string) =>
  `id, title, notes, status, priority, due_at, parent_id, tags, created_at, updated_at, completed_at,
   (due_at IS NOT NULL AND due_at < ${asOf} AND status IN ('open', 'in_progress')) AS overdue`;

function toTask(row: Record<string, unknown>): Task {
  return {
    id: Number(row.id),
    title: row.title as string,
    notes: (row.notes as string | null) ?? null,
    status: row.status as TaskStatus,
    priority: row.priority as TaskPriority,
    dueAt: row.due_at instanceof Date ? row.due_at.toISOString() : null,
    parentId: row.parent_id === null ? null : Number(row.parent_id),
    tags: row.tags as string[],
    overdue: Boolean(row.overdue),
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
    completedAt: row.completed_at instanceof Date ? row.completed_at.toISOString() : null,
  };
}

async function requireParent(db: Queryable, userId: string, value: unknown, taskId?: number): Promise<number | null> {
  if (value === null) return null;
  const parentId = requirePositiveInt(value, 'parentId');
  if (parentId === taskId) throw new AssistantInputError('parentId', 'a task cannot be its own parent');
  const found = await db.query(
    `WITH RECURSIVE up(id, parent_id) AS (
       SELECT id, parent_id FROM assistant.tasks WHERE user_id = $1 AND id = $2
       UNION SELECT t.id, t.parent_id FROM assistant.tasks t JOIN up ON t.user_id = $1 AND t.id = up.parent_id
     ) SELECT id FROM up`,
    [userId, parentId],
  );
  if (found.rowCount === 0) throw new AssistantInputError('parentId', `no task ${parentId} for this user`);
  if (taskId !== undefined && found.rows.some((row) => Number(row.id) === taskId)) {
    throw new AssistantInputError('parentId', 'would make a task its own ancestor');
  }
  return parentId;
}

/** Creates a task; `now` is the clock a due time in words is read against. */
export async function createTask(
  db: Queryable,
  userIdInput: unknown,
  input: TaskInput,
  now: Date = new Date(),
): Promise<Task> {
  const userId = requireUserId(userIdInput);
  const title = requireText(input.title, 'title', 500).trim();
  const notes = optionalText(input.notes, 'notes', 100_000) ?? null;
  const status = optionalEnum(input.status, 'status', TASK_STATUSES) ?? 'open';
  const priority = optionalEnum(input.priority, 'priority', TASK_PRIORITIES) ?? 'medium';
  const dueAt = (await readTaskDue(db, userId, input, now)) ?? null;
  const tags = stringList(input.tags, 'tags');
  const parentId =
    input.parentId === undefined || input.parentId === '' ? null : await requireParent(db, userId, input.parentId);
  const result = await db.query(
    `INSERT INTO assistant.tasks (user_id, title, notes, status, priority, due_at, parent_id, tags, completed_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $4 = 'done' THEN now() END
      WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING ${taskColumns('now()')}`,
    [userId, title, notes, status, priority, dueAt, parentId, tags],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  return toTask(result.rows[0]);
}

export async function getTask(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Task> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'taskId');
  const result = await db.query(`SELECT ${taskColumns('now()')} FROM assistant.tasks WHERE user_id = $1 AND id = $2`, [
    userId,
    id,
  ]);
  if (!result.rows[0]) throw new AssistantNotFoundError('taskId', `no task ${id} for this user`);
  return toTask(result.rows[0]);
}

export interface TaskListOptions {
  status?: unknown;
  priority?: unknown;
  tag?: unknown;
  overdue?: unknown;
  dueToday?: unknown;
  parentId?: unknown;
  /** Overrides the user's time zone for "due today". */
  timeZone?: unknown;
  limit?: unknown;
  /** The instant "now" is taken as (default: the database's now()). */
  asOf?: Date;
}

function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new AssistantInputError(field, 'must be true or false');
}

export async function listTasks(db: Queryable, userIdInput: unknown, options: TaskListOptions = {}): Promise<Task[]> {
  const userId = requireUserId(userIdInput);
  const status = optionalEnum(options.status, 'status', TASK_STATUS_FILTERS) ?? 'active';
  const priority = optionalEnum(options.priority, 'priority', TASK_PRIORITIES);
  const tag = optionalText(options.tag, 'tag', 200)?.trim() || undefined;
  const overdue = optionalBoolean(options.overdue, 'overdue');
  const dueToday = optionalBoolean(options.dueToday, 'dueToday');
  const limit = optionalInt(options.limit, 'limit', 1, 500) ?? 100;
  const parentId =
    options.parentId === undefined || options.parentId === '' || options.parentId === null
      ? undefined
      : requirePositiveInt(options.parentId, 'parentId');
  const timeZone = options.timeZone ? requireTimeZone(options.timeZone) : (await getUserSettings(db, userId)).timeZone;
  const values: unknown[] = [userId, options.asOf ?? null, timeZone];
  const asOf = 'coalesce($2::timestamptz, now())';
  const where = ['user_id = $1'];
  const add = (sql: (param: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (status === 'active') where.push(`status IN ('open', 'in_progress')`);
  else if (status !== 'any') add((p) => `status = ${p}`, status);
  if (priority) add((p) => `priority = ${p}`, priority);
  if (tag) add((p) => `tags @> ARRAY[${p}::text]`, tag);
  if (parentId !== undefined) add((p) => `parent_id = ${p}`, parentId);
  if (overdue) where.push(`due_at < ${asOf} AND status IN ('open', 'in_progress')`);
  if (dueToday) {
    const dayStart = `(date_trunc('day', ${asOf} AT TIME ZONE $3) AT TIME ZONE $3)`;
    const dayEnd = `((date_trunc('day', ${asOf} AT TIME ZONE $3) + interval '1 day') AT TIME ZONE $3)`;
    where.push(`due_at >= ${dayStart} AND due_at < ${dayEnd}`);
  }
  values.push(limit);
  const result = await db.query(
    `SELECT ${taskColumns(asOf)}, $3::text AS time_zone FROM assistant.tasks WHERE ${where.join(' AND ')}
      ORDER BY due_at ASC NULLS LAST, array_position(ARRAY['urgent','high','medium','low'], priority), id
      LIMIT $${values.length}`,
    values,
  );
  return result.rows.map(toTask);
}

/** Changes the given fields only; `due: null` (or "none"), `dueAt: null` and `parentId: null` clear them. */
export async function updateTask(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  input: TaskInput,
  now: Date = new Date(),
): Promise<Task> {
  const userId = requireUserId(userIdInput);
  const current = await getTask(db, userId, idInput);
  const sets: string[] = [];
  const values: unknown[] = [userId, current.id];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (input.title !== undefined && input.title !== '') set('title', requireText(input.title, 'title', 500).trim());
  if (input.notes !== undefined) set('notes', optionalText(input.notes, 'notes', 100_000) ?? null);
  const status = optionalEnum(input.status, 'status', TASK_STATUSES);
  if (status) {
    set('status', status);
    sets.push(status === 'done' ? 'completed_at = coalesce(completed_at, now())' : 'completed_at = NULL');
  }
  const priority = optionalEnum(input.priority, 'priority', TASK_PRIORITIES);
  if (priority) set('priority', priority);
  const dueAt = await readTaskDue(db, userId, input, now);
  if (dueAt !== undefined) set('due_at', dueAt);
  if (input.tags !== undefined) set('tags', stringList(input.tags, 'tags'));
  if (input.parentId !== undefined && input.parentId !== '')
    set('parent_id', await requireParent(db, userId, input.parentId, current.id));
  if (sets.length === 0) return current;
  const result = await db.query(
    `UPDATE assistant.tasks SET ${sets.join(', ')}, updated_at = now() WHERE user_id = $1 AND id = $2 RETURNING ${taskColumns('now()')}`,
    values,
  );
  return toTask(result.rows[0]);
}

export function completeTask(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Task> {
  return updateTask(db, userIdInput, idInput, { status: 'done' });
}

/** Deletes a task. A task with subtasks is only deleted with `withSubtasks`, and then with all of them. */
export async function deleteTask(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  withSubtasks = false,
): Promise<{ deleted: number[] }> {
  const userId = requireUserId(userIdInput);
  const task = await getTask(db, userId, idInput);
  const tree = await db.query<{ id: string }>(
    `WITH RECURSIVE down(id) AS (
       SELECT $2::bigint UNION SELECT t.id FROM assistant.tasks t JOIN down ON t.user_id = $1 AND t.parent_id = down.id
     ) SELECT id FROM down`,
    [userId, task.id],
  );
  const ids = tree.rows.map((row) => Number(row.id));
  if (ids.length > 1 && !withSubtasks) {
    throw new AssistantInputError(
      'taskId',
      `task ${task.id} has ${ids.length - 1} subtask(s); delete them first or set withSubtasks`,
    );
  }
  await db.query('DELETE FROM assistant.tasks WHERE user_id = $1 AND id = ANY($2::bigint[])', [userId, ids]);
  return { deleted: ids };
}
