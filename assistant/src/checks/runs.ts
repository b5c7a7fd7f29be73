// A check run's two steps on the database. recordObservation stores what the run saw: the baseline and "unchanged"
// are committed at once; a delta waits on the run row. finishCheckRun then decides: with notify_when, by the Judge's
// probability against the check's threshold (both recorded beside the decision); without, always. Only then is the
// new state committed, so a run that fails in between (the Judge down, the workflow stopped) loses no delta: the
// next run finds it again. A run whose Judge call a spending cap refused (the Judge's error type budget_exceeded) is
// skipped for budget: its delta is kept the same way, but it is no failure of the check.
import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { queueMessage } from '../delivery/outbox';
import { recordFailure } from '../failures/failures';
import { requireDate } from '../schedule/zone';
import { requirePositiveInt } from '../validate';
import { recordCheckFailure, type CheckRunStatus } from './checks';
import type { CheckCondition, CheckDefinition, CheckKind } from './definition';
import type { CheckState, Delta } from './compare';

/** What a run needs to observe: the check's definition and its state so far. */
export interface CheckToRun extends CheckDefinition {
  runId: number;
  checkId: number;
  userId: string;
  state: CheckState | null;
  status: CheckRunStatus;
}

export type Observation = { ok: true; state: CheckState; delta: Delta | null } | { ok: false; error: string };

/** What the workflow does next: finish at once, or ask the Judge first. */
export interface ObservedRun {
  runId: number;
  checkId: number;
  userId: string;
  outcome: 'baseline' | 'unchanged' | 'changed' | 'failed';
  summary: string | null;
  error: string | null;
  /** Set when the delta goes through the Judge gate. */
  judge: { state: string; question: string; threshold: number } | null;
}

export interface FinishedRun {
  runId: number;
  checkId: number;
  status: CheckRunStatus;
  notified: boolean;
  outboxId: number | null;
  judgeProbability: number | null;
  judgeThreshold: number | null;
  error: string | null;
}

export async function loadCheckRun(db: Queryable, runIdInput: unknown): Promise<CheckToRun> {
  const runId = requirePositiveInt(runIdInput, 'run_id');
  const result = await db.query(
    `SELECT r.id AS run_id, r.status AS run_status, c.* FROM assistant.check_runs r
       JOIN assistant.checks c ON c.id = r.check_id WHERE r.id = $1`,
    [runId],
  );
  const row = result.rows[0];
  if (!row) throw new AssistantNotFoundError('run_id', `no check run ${runId} (was the check deleted?)`);
  return {
    runId,
    checkId: Number(row.id),
    userId: row.user_id as string,
    what: row.what as string,
    kind: row.kind as CheckKind,
    target: row.target as string,
    selector: (row.selector as string | null) ?? null,
    path: (row.path as string | null) ?? null,
    condition: row.condition as CheckCondition,
    threshold: row.threshold === null ? null : Number(row.threshold),
    notifyWhen: (row.notify_when as string | null) ?? null,
    notifyThreshold: Number(row.notify_threshold),
    state: (row.state as CheckState | null) ?? null,
    status: row.run_status as CheckRunStatus,
  };
}

/** The state the Judge reads: what is watched and what changed. */
export function judgeStateOf(check: Pick<CheckToRun, 'what' | 'target'>, summary: string): string {
  return `Watched: ${check.what}${check.target !== check.what ? ` (${check.target})` : ''}\nWhat changed:\n${summary}`;
}

export const judgeQuestionOf = (notifyWhen: string) =>
  `The user asked to be told about a change only if: "${notifyWhen}". Does this change meet that condition?`;

export async function recordObservation(
  pool: Pool,
  check: CheckToRun,
  observation: Observation,
  nowInput: Date,
): Promise<ObservedRun> {
  const now = requireDate(nowInput);
  const base = { runId: check.runId, checkId: check.checkId, userId: check.userId };
  return withTransaction(pool, async (client) => {
    const run = await client.query(`SELECT status FROM assistant.check_runs WHERE id = $1 FOR UPDATE`, [check.runId]);
    if (run.rows[0]?.status !== 'running') {
      throw new AssistantInputError(
        'run_id',
        `check run ${check.runId} is ${run.rows[0]?.status ?? 'gone'}, not running`,
      );
    }
    if (!observation.ok) {
      await client.query(
        `UPDATE assistant.check_runs SET status = 'failed', error = $2, finished_at = $3 WHERE id = $1`,
        [check.runId, observation.error, now],
      );
      await recordCheckFailure(client, check.checkId, check.userId, check.runId, observation.error, now);
      return { ...base, outcome: 'failed', summary: null, error: observation.error, judge: null };
    }
    const healthy = `last_error = NULL, failing_since = NULL, consecutive_failures = 0`;
    if (!check.state || !observation.delta) {
      const outcome = check.state ? 'unchanged' : 'baseline';
      await client.query(`UPDATE assistant.check_runs SET status = $2, finished_at = $3 WHERE id = $1`, [
        check.runId,
        outcome,
        now,
      ]);
      await client.query(
        `UPDATE assistant.checks SET state = $2, baseline_at = coalesce(baseline_at, $3), ${healthy} WHERE id = $1`,
        [check.checkId, JSON.stringify(observation.state), now],
      );
      return { ...base, outcome, summary: null, error: null, judge: null };
    }
    const summary = observation.delta.summary;
    await client.query(
      `UPDATE assistant.check_runs SET status = 'changed', summary = $2, new_state = $3 WHERE id = $1`,
      [check.runId, summary, JSON.stringify(observation.state)],
    );
    await client.query(`UPDATE assistant.checks SET ${healthy} WHERE id = $1`, [check.checkId]);
    const judge = check.notifyWhen
      ? {
          state: judgeStateOf(check, summary),
          question: judgeQuestionOf(check.notifyWhen),
          threshold: check.notifyThreshold,
        }
      : null;
    return { ...base, outcome: 'changed', summary, error: null, judge };
  });
}

/** The probability as the Judge node gives it (a number, or a numeric string from an expression), or null. */
function readProbability(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new AssistantInputError('probability', `must be a probability from 0 to 1, not ${JSON.stringify(value)}`);
  }
  return number;
}

/** The Judge's machine-readable error type when a spending cap refused its call (the judge server's 402). */
export const BUDGET_EXCEEDED = 'budget_exceeded';

/** What the Judge node gave a gated run: its probability, or its error and the error's type. */
export interface JudgeOutcome {
  probability?: unknown;
  judgeError?: unknown;
  /** The System One error body's detail.error_type; `budget_exceeded` skips the run instead of failing it. */
  judgeErrorType?: unknown;
}

const trimmedText = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * Ends a run. A run that already ended (baseline, unchanged, failed, skipped) is returned as it is. A changed run
 * notifies (Judge yes or no gate) or stays silent (Judge no); a gated run without a probability fails and keeps the
 * delta, or, when a spending cap refused the Judge, is skipped for budget and keeps the delta without failing.
 */
export async function finishCheckRun(
  pool: Pool,
  runIdInput: unknown,
  judged: JudgeOutcome,
  nowInput: Date,
): Promise<FinishedRun> {
  const runId = requirePositiveInt(runIdInput, 'run_id');
  const now = requireDate(nowInput);
  return withTransaction(pool, async (client) => {
    const found = await client.query(
      `SELECT r.*, c.what, c.notify_when, c.notify_threshold FROM assistant.check_runs r
         JOIN assistant.checks c ON c.id = r.check_id WHERE r.id = $1 FOR UPDATE OF r`,
      [runId],
    );
    const row = found.rows[0];
    if (!row) throw new AssistantNotFoundError('run_id', `no check run ${runId} (was the check deleted?)`);
    const checkId = Number(row.check_id);
    const result = (status: CheckRunStatus, extra: Partial<FinishedRun> = {}): FinishedRun => ({
      runId,
      checkId,
      status,
      notified: status === 'notified',
      outboxId: row.outbox_id === null ? null : Number(row.outbox_id),
      judgeProbability: row.judge_probability === null ? null : Number(row.judge_probability),
      judgeThreshold: row.judge_threshold === null ? null : Number(row.judge_threshold),
      error: (row.error as string | null) ?? null,
      ...extra,
    });
    if (row.status !== 'changed') {
      if (row.status === 'running') throw new AssistantInputError('run_id', `check run ${runId} has not observed yet`);
      return result(row.status as CheckRunStatus);
    }
    const gated = row.notify_when !== null;
    const threshold = Number(row.notify_threshold);
    let probability: number | null = null;
    if (gated) {
      const judgeError = trimmedText(judged.judgeError);
      const budgetRefused = trimmedText(judged.judgeErrorType) === BUDGET_EXCEEDED;
      probability = judgeError || budgetRefused ? null : readProbability(judged.probability);
      if (budgetRefused) {
        // Not a failure of the check (no streak); failure awareness names it as a skipped run. The delta stays on
        // this run only, so the next run finds it again.
        const error = `skipped for budget: ${judgeError || 'a spending cap refused the Judge call'}`;
        await client.query(
          `UPDATE assistant.check_runs SET status = 'skipped', error = $2, finished_at = $3 WHERE id = $1`,
          [runId, error, now],
        );
        await recordFailure(
          client,
          {
            source: 'skipped',
            userId: row.user_id as string,
            workflow: `check ${checkId}`,
            message: `check ${checkId} (${String(row.what)}) was ${error}`,
            data: { check_id: checkId, run_id: runId },
          },
          now,
        );
        return result('skipped', { error });
      }
      if (probability === null) {
        const error = `the Judge could not be asked whether the change meets "${row.notify_when}": ${judgeError || 'no probability came back'}`;
        await client.query(
          `UPDATE assistant.check_runs SET status = 'failed', error = $2, finished_at = $3 WHERE id = $1`,
          [runId, error, now],
        );
        await recordCheckFailure(client, checkId, row.user_id as string, runId, error, now);
        return result('failed', { error });
      }
    }
    const notify = !gated || (probability as number) >= threshold;
    let outboxId: number | null = null;
    if (notify) {
      const { message } = await queueMessage(client, row.user_id as string, {
        kind: 'check',
        text: `🔔 Check ${checkId} (${row.what}): ${row.summary}`,
        data: { check_id: checkId, run_id: runId, judge_probability: probability },
        dedupeKey: `check-run:${runId}`,
        tickId: row.tick_id === null ? null : Number(row.tick_id),
      });
      outboxId = message.id;
    }
    const status: CheckRunStatus = notify ? 'notified' : 'silenced';
    await client.query(
      `UPDATE assistant.check_runs SET status = $2, finished_at = $3, judge_probability = $4, judge_threshold = $5,
              outbox_id = $6, new_state = NULL WHERE id = $1`,
      [runId, status, now, probability, gated ? threshold : null, outboxId],
    );
    await client.query(
      `UPDATE assistant.checks SET state = $2, last_change_at = $3, updated_at = clock_timestamp() WHERE id = $1`,
      [checkId, JSON.stringify(row.new_state), now],
    );
    return result(status, {
      notified: notify,
      outboxId,
      judgeProbability: probability,
      judgeThreshold: gated ? threshold : null,
    });
  });
}
