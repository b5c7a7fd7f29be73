// Checks: the agent's add_check / list_checks / pause_check / delete_check / check_history, and the minute tick's
// claim of due runs. A check runs on its schedule in the user's zone (schedule/recurrence.ts); a run never overlaps
// the check's previous one, and a run that has not finished after the 5-minute limit is recorded as failed.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserPreferences } from '../settings/preferences';
import { type Schedule, nextRun, parseSchedule } from '../schedule/recurrence';
import { describeInstant, requireDate } from '../schedule/zone';
import { recordFailure } from '../failures/failures';
import { optionalInt, requirePositiveInt, requireText, requireUserId } from '../validate';
import { type OutboundGuard } from '../outbound';
import {
  type CheckCondition,
  type CheckDefinition,
  type CheckDefinitionInput,
  type CheckKind,
  describeCheckTarget,
  readCheckDefinition,
} from './definition';

/** A run (fetch, compare, Judge, queue) must finish within this; the workflow's own limit is the same. */
export const CHECK_RUN_LIMIT_SECONDS = 300;

export type CheckStatus = 'active' | 'paused';
export type CheckRunStatus =
  'running' | 'changed' | 'baseline' | 'unchanged' | 'notified' | 'silenced' | 'failed' | 'skipped';

/** A stored check: its definition, its schedule and how its runs went. */
export interface Check extends CheckDefinition {
  id: number;
  /** In words: what is watched and when it speaks. */
  watches: string;
  scheduleText: string;
  schedule: string;
  timeZone: string;
  status: CheckStatus;
  nextRunAt: string;
  nextRun: string;
  baselineAt: string | null;
  lastRunAt: string | null;
  lastChangeAt: string | null;
  lastError: string | null;
  failingSince: string | null;
  consecutiveFailures: number;
}

export interface CheckRun {
  id: number;
  checkId: number;
  startedAt: string;
  finishedAt: string | null;
  status: CheckRunStatus;
  summary: string | null;
  judgeProbability: number | null;
  judgeThreshold: number | null;
  error: string | null;
}

export interface DueCheckRun {
  runId: number;
  checkId: number;
  userId: string;
}

export type AddCheckResult =
  { ok: true; check: Check; message: string } | { ok: false; field: string; message: string };

export interface AddCheckOptions {
  /** The outbound guard: a URL it refuses is refused here, before anything is stored. */
  guard?: Pick<OutboundGuard, 'check'>;
  /** Whether a judge answers: null when it does, else why not. Asked only when notify_when is given. */
  judgeProblem?: () => Promise<string | null>;
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);

function toCheck(row: Record<string, unknown>): Check {
  const next = row.next_run_at as Date;
  const definition = {
    kind: row.kind as CheckKind,
    target: row.target as string,
    selector: (row.selector as string | null) ?? null,
    path: (row.path as string | null) ?? null,
    condition: row.condition as CheckCondition,
    threshold: row.threshold === null ? null : Number(row.threshold),
  };
  return {
    id: Number(row.id),
    what: row.what as string,
    ...definition,
    notifyWhen: (row.notify_when as string | null) ?? null,
    notifyThreshold: Number(row.notify_threshold),
    watches: describeCheckTarget(definition),
    scheduleText: row.schedule_text as string,
    schedule: (row.schedule as Schedule).description,
    timeZone: row.time_zone as string,
    status: row.status as CheckStatus,
    nextRunAt: next.toISOString(),
    nextRun: describeInstant(next, row.time_zone as string),
    baselineAt: iso(row.baseline_at),
    lastRunAt: iso(row.last_run_at),
    lastChangeAt: iso(row.last_change_at),
    lastError: (row.last_error as string | null) ?? null,
    failingSince: iso(row.failing_since),
    consecutiveFailures: Number(row.consecutive_failures),
  };
}

export function toCheckRun(row: Record<string, unknown>): CheckRun {
  return {
    id: Number(row.id),
    checkId: Number(row.check_id),
    startedAt: (row.started_at as Date).toISOString(),
    finishedAt: iso(row.finished_at),
    status: row.status as CheckRunStatus,
    summary: (row.summary as string | null) ?? null,
    judgeProbability: row.judge_probability === null ? null : Number(row.judge_probability),
    judgeThreshold: row.judge_threshold === null ? null : Number(row.judge_threshold),
    error: (row.error as string | null) ?? null,
  };
}

const floorToMinute = (at: Date) => new Date(Math.floor(at.getTime() / 60_000) * 60_000);

/**
 * Adds a check for the user. Nothing is fetched here: the first run (on the next tick) records the baseline silently.
 * Problems the user can fix (an unreadable schedule, a refused URL, notify_when without a judge) are an
 * `{ ok: false, field, message }` for the agent to relay; a malformed call throws an AssistantInputError.
 */
export async function addCheck(
  db: Queryable,
  userIdInput: unknown,
  input: CheckDefinitionInput & { schedule?: unknown },
  nowInput: Date,
  options: AddCheckOptions = {},
): Promise<AddCheckResult> {
  const userId = requireUserId(userIdInput);
  const now = requireDate(nowInput);
  let definition;
  try {
    definition = readCheckDefinition(input);
  } catch (error) {
    if (error instanceof AssistantInputError) {
      return { ok: false, field: error.field, message: `The check was not added: ${error.field} ${error.reason}.` };
    }
    throw error;
  }
  const scheduleText = requireText(input.schedule, 'schedule', 200).trim();
  const { timeZone, locale } = await getUserPreferences(db, userId);
  const schedule = parseSchedule(scheduleText, { timeZone, locale });
  if (!schedule.ok) return { ok: false, field: 'schedule', message: `The check was not added. ${schedule.message}` };
  if (definition.kind !== 'search' && options.guard) {
    const decision = await options.guard.check(definition.target);
    if (!decision.allowed) {
      return {
        ok: false,
        field: 'url',
        message: `The check was not added: ${definition.target} is refused: ${decision.reason}.`,
      };
    }
  }
  if (definition.notifyWhen) {
    const problem = options.judgeProblem ? await options.judgeProblem() : 'no judge is configured for this workflow';
    if (problem) {
      return {
        ok: false,
        field: 'notify_when',
        message:
          `The check was not added: notify_when needs the Judge to decide which changes are worth telling, and ${problem}. ` +
          'To set one up, run the judge server (./scripts/run.sh starts one) and put its URL and key in the n8n ' +
          'credential "System One API (judge server)" (SYSTEMONE_JUDGE_URL and SYSTEMONE_JUDGE_KEY for the installer). ' +
          'Or add the check without notify_when, to hear about every change.',
      };
    }
  }
  const anchor = floorToMinute(now);
  const result = await db.query(
    `INSERT INTO assistant.checks (user_id, what, kind, target, selector, path, condition, threshold, notify_when,
                                   notify_threshold, schedule_text, schedule, time_zone, anchor_at, next_run_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14
      WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING *`,
    [
      userId,
      definition.what,
      definition.kind,
      definition.target,
      definition.selector,
      definition.path,
      definition.condition,
      definition.threshold,
      definition.notifyWhen,
      definition.notifyThreshold,
      scheduleText,
      JSON.stringify(schedule),
      timeZone,
      anchor,
    ],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  const check = toCheck(result.rows[0]);
  const gate = check.notifyWhen
    ? ` I will tell you about a change only when the Judge finds it meets "${check.notifyWhen}".`
    : ' I will tell you about every real change, and stay silent otherwise.';
  return {
    ok: true,
    check,
    message:
      `Check ${check.id} added: ${check.watches}, ${schedule.description}. The first run, on the next minute, ` +
      `records the current state silently as the baseline.${gate}`,
  };
}

export async function listChecks(db: Queryable, userIdInput: unknown): Promise<Check[]> {
  const userId = requireUserId(userIdInput);
  const result = await db.query(`SELECT * FROM assistant.checks WHERE user_id = $1 ORDER BY id`, [userId]);
  return result.rows.map(toCheck);
}

async function requireCheck(db: Queryable, userId: string, id: number): Promise<Record<string, unknown>> {
  const found = await db.query(`SELECT * FROM assistant.checks WHERE user_id = $1 AND id = $2`, [userId, id]);
  if (!found.rows[0]) throw new AssistantNotFoundError('check_id', `no check ${id} for this user`);
  return found.rows[0];
}

export async function pauseCheck(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Check> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'check_id');
  const row = await requireCheck(db, userId, id);
  if (row.status === 'paused') throw new AssistantInputError('check_id', `check ${id} is already paused`);
  const result = await db.query(
    `UPDATE assistant.checks SET status = 'paused', updated_at = clock_timestamp() WHERE id = $1 RETURNING *`,
    [id],
  );
  return toCheck(result.rows[0]);
}

/** Resumes from `now`; the baseline is kept, so a change made while paused is reported by the next run. */
export async function resumeCheck(db: Queryable, userIdInput: unknown, idInput: unknown, now: Date): Promise<Check> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'check_id');
  const row = await requireCheck(db, userId, id);
  if (row.status === 'active') throw new AssistantInputError('check_id', `check ${id} is not paused`);
  const anchor = floorToMinute(requireDate(now));
  const result = await db.query(
    `UPDATE assistant.checks SET status = 'active', anchor_at = $2, next_run_at = $2, updated_at = clock_timestamp()
      WHERE id = $1 RETURNING *`,
    [id, anchor],
  );
  return toCheck(result.rows[0]);
}

export async function deleteCheck(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Check> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'check_id');
  const result = await db.query(`DELETE FROM assistant.checks WHERE user_id = $1 AND id = $2 RETURNING *`, [
    userId,
    id,
  ]);
  if (!result.rows[0]) throw new AssistantNotFoundError('check_id', `no check ${id} for this user`);
  return toCheck(result.rows[0]);
}

/** The check's runs, newest first (10 by default, at most 100). */
export async function checkHistory(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  limitInput?: unknown,
): Promise<{ check: Check; runs: CheckRun[] }> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'check_id');
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const check = toCheck(await requireCheck(db, userId, id));
  const runs = await db.query(`SELECT * FROM assistant.check_runs WHERE check_id = $1 ORDER BY id DESC LIMIT $2`, [
    id,
    limit,
  ]);
  return { check, runs: runs.rows.map(toCheckRun) };
}

/**
 * The tick's part: runs that outlived the run limit are recorded as failed, then every active check due at `now`
 * whose previous run has finished is claimed (SKIP LOCKED: a concurrent tick takes others), moved to its next run,
 * and given a run row. Runs missed while the system was down are not replayed: one run now.
 */
export async function claimDueChecks(
  db: Queryable,
  now: Date,
  options: { tickId?: number | null; limit?: number } = {},
): Promise<DueCheckRun[]> {
  const stale = await db.query(
    `UPDATE assistant.check_runs SET status = 'failed', finished_at = $1,
            error = 'the run did not finish within ${CHECK_RUN_LIMIT_SECONDS / 60} minutes'
      WHERE status IN ('running', 'changed') AND started_at < $1::timestamptz - make_interval(secs => $2)
      RETURNING id, check_id, user_id`,
    [now, CHECK_RUN_LIMIT_SECONDS + 30],
  );
  for (const run of stale.rows) {
    await recordCheckFailure(db, Number(run.check_id), run.user_id as string, Number(run.id), null, now);
  }
  const due = await db.query(
    `SELECT c.id, c.user_id, c.schedule, c.time_zone FROM assistant.checks c
      WHERE c.status = 'active' AND c.next_run_at <= $1
        AND NOT EXISTS (SELECT 1 FROM assistant.check_runs r WHERE r.check_id = c.id AND r.status IN ('running', 'changed'))
      ORDER BY c.next_run_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED`,
    [now, options.limit ?? 200],
  );
  const runs: DueCheckRun[] = [];
  for (const row of due.rows) {
    const anchor = floorToMinute(now);
    // Claimed only if still due: outside a transaction the row lock above ends with its statement, and a concurrent
    // tick may have claimed the check meanwhile (its update moved next_run_at on).
    const claimed = await db.query(
      `UPDATE assistant.checks SET anchor_at = $2, next_run_at = $3, last_run_at = $4
        WHERE id = $1 AND status = 'active' AND next_run_at <= $4`,
      [row.id, anchor, nextRun(row.schedule as Schedule, anchor, row.time_zone as string), now],
    );
    if (claimed.rowCount === 0) continue;
    const run = await db.query(
      `INSERT INTO assistant.check_runs (check_id, user_id, tick_id, started_at) VALUES ($1, $2, $3, $4) RETURNING id`,
      [row.id, row.user_id, options.tickId ?? null, now],
    );
    runs.push({ runId: Number(run.rows[0].id), checkId: Number(row.id), userId: row.user_id as string });
  }
  return runs;
}

/**
 * Marks the check as failing with its run's error. A failure row is written when a failure streak starts or its
 * error changes, not for every run of a check that stays down (list_checks shows the streak).
 */
export async function recordCheckFailure(
  db: Queryable,
  checkId: number,
  userId: string,
  runId: number,
  error: string | null,
  now: Date,
): Promise<void> {
  const run = await db.query(`SELECT error FROM assistant.check_runs WHERE id = $1`, [runId]);
  const message = error ?? (run.rows[0]?.error as string | undefined) ?? 'the run failed';
  const before = await db.query(
    `SELECT last_error, consecutive_failures, what FROM assistant.checks WHERE id = $1 FOR UPDATE`,
    [checkId],
  );
  if (!before.rows[0]) return;
  const { last_error: lastError, consecutive_failures: streak, what } = before.rows[0];
  await db.query(
    `UPDATE assistant.checks SET last_error = $2, consecutive_failures = consecutive_failures + 1,
            failing_since = coalesce(failing_since, $3) WHERE id = $1`,
    [checkId, message, now],
  );
  if (Number(streak) === 0 || lastError !== message) {
    await recordFailure(
      db,
      {
        source: 'check',
        userId,
        workflow: `check ${checkId} (${what})`,
        message,
        retried: 'the check runs again on its schedule',
        data: { check_id: checkId, run_id: runId },
      },
      now,
    );
  }
}
