// Recurring actions: an instruction the agent runs for the user on a schedule ("every weekday at 7:30", "every 15
// minutes", cron), computed on the user's clock. The minute tick claims due actions (claimDueActions); runs missed
// while the system was down are not replayed: one late run, with a note (schedule/recurrence.ts, catchUp).
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserPreferences } from '../settings/preferences';
import { type Schedule, catchUp, nextRun, parseSchedule } from '../schedule/recurrence';
import { describeInstant } from '../schedule/zone';
import { recordFailure } from '../failures/failures';
import { requirePositiveInt, requireText, requireUserId } from '../validate';

export type ActionStatus = 'active' | 'paused';

export interface ScheduledAction {
  id: number;
  instruction: string;
  scheduleText: string;
  schedule: string;
  timeZone: string;
  status: ActionStatus;
  nextRunAt: string;
  /** The next run on the user's clock. */
  nextRun: string;
  lastRunAt: string | null;
}

export type ScheduleActionResult =
  { ok: true; action: ScheduledAction; message: string } | { ok: false; message: string; field: 'schedule' };

/** A claimed run: what the action workflow executes. */
export interface DueActionRun {
  runId: number;
  actionId: number;
  userId: string;
  instruction: string;
  scheduledFor: string;
  late: boolean;
  note: string | null;
}

const COLUMNS = 'id, instruction, schedule_text, schedule, time_zone, status, next_run_at, last_run_at';

function toAction(row: Record<string, unknown>): ScheduledAction {
  const schedule = row.schedule as Schedule;
  const next = row.next_run_at as Date;
  return {
    id: Number(row.id),
    instruction: row.instruction as string,
    scheduleText: row.schedule_text as string,
    schedule: schedule.description,
    timeZone: row.time_zone as string,
    status: row.status as ActionStatus,
    nextRunAt: next.toISOString(),
    nextRun: describeInstant(next, row.time_zone as string),
    lastRunAt: row.last_run_at instanceof Date ? row.last_run_at.toISOString() : null,
  };
}

const floorToMinute = (at: Date) => new Date(Math.floor(at.getTime() / 60_000) * 60_000);

/** Schedules `instruction` on `schedule` (the user's words, in their zone). `now` is the injected clock. */
export async function scheduleAction(
  db: Queryable,
  userIdInput: unknown,
  input: { instruction?: unknown; schedule?: unknown },
  now: Date,
): Promise<ScheduleActionResult> {
  const userId = requireUserId(userIdInput);
  const instruction = requireText(input.instruction, 'instruction', 4000).trim();
  const scheduleText = requireText(input.schedule, 'schedule', 200).trim();
  const { timeZone, locale } = await getUserPreferences(db, userId);
  const schedule = parseSchedule(scheduleText, { timeZone, locale });
  if (!schedule.ok) return { ok: false, message: schedule.message, field: 'schedule' };
  // Interval grids start on a whole minute, so "every minute" runs on every tick.
  const anchor = floorToMinute(now);
  const next = nextRun(schedule, anchor, timeZone);
  const result = await db.query(
    `INSERT INTO assistant.scheduled_actions (user_id, instruction, schedule_text, schedule, time_zone, anchor_at, next_run_at)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING ${COLUMNS}`,
    [userId, instruction, scheduleText, JSON.stringify(schedule), timeZone, anchor, next],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  const action = toAction(result.rows[0]);
  return {
    ok: true,
    action,
    message: `Action ${action.id} scheduled ${schedule.description}; the first run is ${action.nextRun}.`,
  };
}

export async function listActions(db: Queryable, userIdInput: unknown): Promise<ScheduledAction[]> {
  const userId = requireUserId(userIdInput);
  const result = await db.query(`SELECT ${COLUMNS} FROM assistant.scheduled_actions WHERE user_id = $1 ORDER BY id`, [
    userId,
  ]);
  return result.rows.map(toAction);
}

async function requireAction(db: Queryable, userId: string, id: number): Promise<Record<string, unknown>> {
  const found = await db.query(`SELECT * FROM assistant.scheduled_actions WHERE user_id = $1 AND id = $2`, [
    userId,
    id,
  ]);
  if (!found.rows[0]) throw new AssistantNotFoundError('action_id', `no scheduled action ${id} for this user`);
  return found.rows[0];
}

export async function pauseAction(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<ScheduledAction> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'action_id');
  const row = await requireAction(db, userId, id);
  if (row.status === 'paused') throw new AssistantInputError('action_id', `action ${id} is already paused`);
  const result = await db.query(
    `UPDATE assistant.scheduled_actions SET status = 'paused', updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return toAction(result.rows[0]);
}

/** Resumes a paused action from `now`: runs that fell due while it was paused are skipped, not caught up. */
export async function resumeAction(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  now: Date,
): Promise<ScheduledAction> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'action_id');
  const row = await requireAction(db, userId, id);
  if (row.status === 'active') throw new AssistantInputError('action_id', `action ${id} is not paused`);
  const anchor = floorToMinute(now);
  const next = nextRun(row.schedule as Schedule, anchor, row.time_zone as string);
  const result = await db.query(
    `UPDATE assistant.scheduled_actions SET status = 'active', anchor_at = $2, next_run_at = $3, updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, anchor, next],
  );
  return toAction(result.rows[0]);
}

export async function deleteAction(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<ScheduledAction> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'action_id');
  const result = await db.query(
    `DELETE FROM assistant.scheduled_actions WHERE user_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [userId, id],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('action_id', `no scheduled action ${id} for this user`);
  return toAction(result.rows[0]);
}

/**
 * Claims every active action due at `now` (rows locked with SKIP LOCKED, so a concurrent tick takes others), moves
 * each to its next run, and records a run per action: at most one, however many fell due (catchUp's policy).
 */
export async function claimDueActions(
  db: Queryable,
  now: Date,
  options: { tickId?: number | null; limit?: number } = {},
): Promise<DueActionRun[]> {
  const due = await db.query(
    `SELECT id, user_id, instruction, schedule, time_zone, anchor_at FROM assistant.scheduled_actions
      WHERE status = 'active' AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, options.limit ?? 200],
  );
  const runs: DueActionRun[] = [];
  for (const row of due.rows) {
    const policy = catchUp(row.schedule as Schedule, row.anchor_at as Date, now, row.time_zone as string);
    const scheduledFor = policy.scheduledFor ?? now;
    // Claimed only if still due (see claimDueChecks: outside a transaction a concurrent tick may have claimed it).
    const claimed = await db.query(
      `UPDATE assistant.scheduled_actions SET anchor_at = $2, next_run_at = $3, last_run_at = $4
        WHERE id = $1 AND status = 'active' AND next_run_at <= $4`,
      [row.id, scheduledFor, policy.nextRun, now],
    );
    if (claimed.rowCount === 0) continue;
    const run = await db.query(
      `INSERT INTO assistant.action_runs (action_id, user_id, tick_id, scheduled_for, late, note)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [row.id, row.user_id, options.tickId ?? null, scheduledFor, policy.late, policy.note],
    );
    runs.push({
      runId: Number(run.rows[0].id),
      actionId: Number(row.id),
      userId: row.user_id as string,
      instruction: row.instruction as string,
      scheduledFor: scheduledFor.toISOString(),
      late: policy.late,
      note: policy.note,
    });
  }
  return runs;
}

/** Records how a run ended (and the turn it ran as). */
export async function finishActionRun(
  db: Queryable,
  runIdInput: unknown,
  outcome: { status: 'succeeded' | 'failed'; error?: string | null; turnId?: number | null },
): Promise<void> {
  const runId = requirePositiveInt(runIdInput, 'run_id');
  // A run whose model call a spending cap refused did not fail: it was skipped for budget (the gateway's ledger says).
  const overBudget =
    outcome.status === 'failed' && outcome.turnId
      ? (
          await db.query(`SELECT 1 FROM assistant.model_calls WHERE ref = $1 AND outcome = 'over_budget' LIMIT 1`, [
            String(outcome.turnId),
          ])
        ).rows.length > 0
      : false;
  const status = overBudget ? 'skipped' : outcome.status;
  const result = await db.query(
    `UPDATE assistant.action_runs SET status = $2, error = $3, turn_id = coalesce($4, turn_id),
            finished_at = clock_timestamp()
      WHERE id = $1 RETURNING user_id, action_id`,
    [runId, status, outcome.error ?? null, outcome.turnId ?? null],
  );
  if (result.rowCount === 0) throw new AssistantNotFoundError('run_id', `no action run ${runId}`);
  if (status !== 'succeeded') {
    const { user_id: userId, action_id: actionId } = result.rows[0];
    // Skipped for budget is no failure of the action, but failure awareness names it ("a run was skipped").
    await recordFailure(db, {
      source: status === 'skipped' ? 'skipped' : 'action',
      userId,
      workflow: `recurring action ${actionId}`,
      message:
        status === 'skipped'
          ? `recurring action ${actionId} was skipped for budget: ${outcome.error || 'a spending cap refused its model call'}`
          : outcome.error || 'the run did not finish',
      data: { action_id: Number(actionId), run_id: runId },
    });
  }
}
