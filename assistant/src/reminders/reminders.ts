// Reminders: the user's words for "when" are read by code (parseWhen) in their time zone and locale; the minute tick
// fires each one exactly once (see scheduler/tick.ts). An unreadable or past `when` is an answer for the agent to
// relay, not an error: it names what was understood.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserPreferences } from '../settings/preferences';
import { describeInstant } from '../schedule/zone';
import { parseWhen } from '../schedule/when';
import { optionalEnum, requirePositiveInt, requireText, requireUserId } from '../validate';

export const REMINDER_STATUSES = ['scheduled', 'fired', 'cancelled'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

export interface Reminder {
  id: number;
  text: string;
  dueAt: string;
  /** The due time on the user's clock, e.g. "Tue 2026-03-31 09:00 Europe/Vienna". */
  due: string;
  whenText: string;
  timeZone: string;
  taskId: number | null;
  status: ReminderStatus;
  firedAt: string | null;
  late: boolean | null;
}

export type SetReminderResult =
  { ok: true; reminder: Reminder; message: string } | { ok: false; message: string; field: 'when' };

const COLUMNS = 'id, text, due_at, when_text, time_zone, task_id, status, fired_at, late';

function toReminder(row: Record<string, unknown>): Reminder {
  const dueAt = row.due_at as Date;
  return {
    id: Number(row.id),
    text: row.text as string,
    dueAt: dueAt.toISOString(),
    due: describeInstant(dueAt, row.time_zone as string),
    whenText: row.when_text as string,
    timeZone: row.time_zone as string,
    taskId: row.task_id === null ? null : Number(row.task_id),
    status: row.status as ReminderStatus,
    firedAt: row.fired_at instanceof Date ? row.fired_at.toISOString() : null,
    late: (row.late as boolean | null) ?? null,
  };
}

/**
 * Sets a reminder `when` (the user's words, read in their zone) about `text`, or about task `taskId` (its title when
 * no text is given). `now` is the injected clock.
 */
export async function setReminder(
  db: Queryable,
  userIdInput: unknown,
  input: { text?: unknown; when?: unknown; taskId?: unknown },
  now: Date,
): Promise<SetReminderResult> {
  const userId = requireUserId(userIdInput);
  const when = requireText(input.when, 'when', 300).trim();
  const taskId = input.taskId === undefined || input.taskId === '' ? null : requirePositiveInt(input.taskId, 'task_id');
  let text = typeof input.text === 'string' ? input.text.trim() : input.text;
  if (taskId !== null) {
    const task = await db.query('SELECT title FROM assistant.tasks WHERE user_id = $1 AND id = $2', [userId, taskId]);
    if (!task.rows[0]) throw new AssistantInputError('task_id', `no task ${taskId} for this user`);
    if (text === undefined || text === null || text === '') text = task.rows[0].title as string;
  }
  const reminderText = requireText(text, 'text', 2000).trim();
  const { timeZone, locale } = await getUserPreferences(db, userId);
  const parsed = parseWhen(when, { now, timeZone, locale });
  if (!parsed.ok) return { ok: false, message: parsed.message, field: 'when' };
  const result = await db.query(
    `INSERT INTO assistant.reminders (user_id, text, due_at, when_text, time_zone, task_id)
     SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING ${COLUMNS}`,
    [userId, reminderText, parsed.at, when, timeZone, taskId],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  const reminder = toReminder(result.rows[0]);
  return { ok: true, reminder, message: `Reminder ${reminder.id} set for ${parsed.understood}: "${reminder.text}".` };
}

/** A user's reminders: by default the scheduled ones, soonest first. */
export async function listReminders(
  db: Queryable,
  userIdInput: unknown,
  options: { status?: unknown; limit?: number } = {},
): Promise<Reminder[]> {
  const userId = requireUserId(userIdInput);
  const status = optionalEnum(options.status, 'status', [...REMINDER_STATUSES, 'any'] as const) ?? 'scheduled';
  const result = await db.query(
    `SELECT ${COLUMNS} FROM assistant.reminders
      WHERE user_id = $1 AND ($2 = 'any' OR status = $2)
      ORDER BY CASE WHEN status = 'scheduled' THEN due_at END ASC, due_at DESC LIMIT $3`,
    [userId, status, options.limit ?? 100],
  );
  return result.rows.map(toReminder);
}

/** Cancels a scheduled reminder; one that already fired or was cancelled is reported as such. */
export async function cancelReminder(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Reminder> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'reminder_id');
  const result = await db.query(
    `UPDATE assistant.reminders SET status = 'cancelled' WHERE user_id = $1 AND id = $2 AND status = 'scheduled'
     RETURNING ${COLUMNS}`,
    [userId, id],
  );
  if (result.rows[0]) return toReminder(result.rows[0]);
  const existing = await db.query(`SELECT status FROM assistant.reminders WHERE user_id = $1 AND id = $2`, [
    userId,
    id,
  ]);
  if (!existing.rows[0]) throw new AssistantNotFoundError('reminder_id', `no reminder ${id} for this user`);
  throw new AssistantInputError('reminder_id', `reminder ${id} has already ${existing.rows[0].status}`);
}
