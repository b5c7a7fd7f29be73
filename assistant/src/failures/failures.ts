// Failure awareness: failed executions (the error workflow), deliveries that failed or whose outcome is unknown,
// failed recurring action runs, outages (a gap in the tick ledger), turns that got no reply, model provider errors
// (the gateway's), calls a spending cap refused and runs skipped for budget, in one table with secrets scrubbed, so
// that "did anything fail today?" gets a plain answer and the owner hears about failures without asking. A streak of
// the same failure is one row with a count.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { scrubSecrets } from '../privacy/scrub';
import { describeInstant, requireDate } from '../schedule/zone';
import { optionalTimestamp } from '../validate';

export const FAILURE_SOURCES = [
  'workflow',
  'delivery',
  'action',
  'check',
  'outage',
  'turn',
  'provider',
  'budget',
  'skipped',
  'capture',
] as const;
export type FailureSource = (typeof FAILURE_SOURCES)[number];

export interface FailureInput {
  source: FailureSource;
  message: string;
  workflow?: string | null;
  node?: string | null;
  executionId?: string | null;
  userId?: string | null;
  retried?: string | null;
  data?: Record<string, unknown>;
  /** What makes two failures "the same" for a streak; default: the workflow and the message with numbers blanked. */
  fingerprint?: string;
}

export interface FailureRecord {
  id: number;
  occurredAt: string;
  source: FailureSource;
  workflow: string | null;
  node: string | null;
  message: string;
  executionId: string | null;
  retried: string | null;
  /** How many times in a row it happened, and the last time (null: once). */
  count: number;
  lastAt: string | null;
}

const MAX_MESSAGE = 2000;

export async function recordFailure(db: Queryable, input: FailureInput, now: Date = new Date()): Promise<number> {
  if (!FAILURE_SOURCES.includes(input.source)) {
    throw new AssistantInputError('source', `must be one of ${FAILURE_SOURCES.join(', ')}`);
  }
  const message = scrubSecrets(String(input.message ?? '').trim() || 'no error message').slice(0, MAX_MESSAGE);
  const fingerprint = input.fingerprint ?? `${input.workflow ?? ''}|${message.replace(/\d+/g, '#').slice(0, 300)}`;
  // The same failure as the latest of its source and user, not yet reported: one more in its streak.
  const result = await db.query(
    `WITH latest AS (
       SELECT id, fingerprint, reported_at FROM assistant.failures
        WHERE source = $2 AND user_id IS NOT DISTINCT FROM $7::uuid ORDER BY id DESC LIMIT 1 FOR UPDATE),
     bumped AS (
       UPDATE assistant.failures f SET count = f.count + 1, last_at = $1, message = $5
         FROM latest WHERE f.id = latest.id AND latest.fingerprint = $10 AND latest.reported_at IS NULL
       RETURNING f.id),
     inserted AS (
       INSERT INTO assistant.failures
         (occurred_at, source, workflow, node, message, execution_id, user_id, retried, data, fingerprint)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE NOT EXISTS (SELECT 1 FROM bumped)
       RETURNING id)
     SELECT id FROM bumped UNION ALL SELECT id FROM inserted`,
    [
      requireDate(now),
      input.source,
      input.workflow ?? null,
      input.node ?? null,
      message,
      input.executionId ?? null,
      input.userId ?? null,
      input.retried ?? null,
      JSON.stringify(input.data ?? {}),
      fingerprint,
    ],
  );
  return Number(result.rows[0].id);
}

function toRecord(row: Record<string, unknown>): FailureRecord {
  return {
    id: Number(row.id),
    occurredAt: (row.occurred_at as Date).toISOString(),
    source: row.source as FailureSource,
    workflow: (row.workflow as string | null) ?? null,
    node: (row.node as string | null) ?? null,
    message: row.message as string,
    executionId: (row.execution_id as string | null) ?? null,
    retried: (row.retried as string | null) ?? null,
    count: Number(row.count ?? 1),
    lastAt: row.last_at instanceof Date ? row.last_at.toISOString() : null,
  };
}

/** Where a failure happened, in plain words. */
const WHERE: Partial<Record<FailureSource, string>> = {
  outage: 'the assistant was down',
  turn: 'a message got no reply',
  provider: 'the model provider',
  budget: 'a spending cap stopped a model call',
  skipped: 'a run was skipped',
  capture: 'memory capture dropped a batch',
};

/** One line a person can read: when, what, why, and what was retried. */
export function describeFailureRecord(failure: FailureRecord, timeZone: string): string {
  const when = describeInstant(new Date(failure.occurredAt), timeZone).split(' ').slice(1, 3).join(' ');
  const where =
    failure.source === 'workflow'
      ? `workflow "${failure.workflow ?? '?'}"${failure.node ? `, node "${failure.node}"` : ''}`
      : (WHERE[failure.source] ?? `${failure.source}${failure.workflow ? ` (${failure.workflow})` : ''}`);
  const last = failure.lastAt ? describeInstant(new Date(failure.lastAt), timeZone).split(' ')[2] : null;
  const streak = failure.count > 1 ? ` (${failure.count} times${last ? `, the last at ${last}` : ''})` : '';
  return `${when}: ${where}: ${failure.message}${failure.retried ? ` (${failure.retried})` : ''}${streak}`;
}

export interface FailureList {
  since: string;
  count: number;
  failures: FailureRecord[];
  /** The answer to "did anything fail?", one line per failure (newest first, at most 50). */
  summary: string;
}

/**
 * Failures since `since` (an ISO time; default 24 h before `now`) that concern everyone or `userId`, newest first.
 * Times are shown in `timeZone`.
 */
export async function listFailures(
  db: Queryable,
  options: { since?: unknown; userId?: string | null; timeZone: string; now?: Date },
): Promise<FailureList> {
  const now = options.now ?? new Date();
  const since = optionalTimestamp(options.since, 'since') ?? new Date(now.getTime() - 24 * 3_600_000);
  const result = await db.query(
    `SELECT * FROM assistant.failures
      WHERE coalesce(last_at, occurred_at) >= $1 AND (user_id IS NULL OR $2::uuid IS NULL OR user_id = $2)
      ORDER BY coalesce(last_at, occurred_at) DESC LIMIT 50`,
    [since, options.userId ?? null],
  );
  const failures = result.rows.map(toRecord);
  const from = describeInstant(since, options.timeZone);
  const summary =
    failures.length === 0
      ? `Nothing failed since ${from}.`
      : [
          `${failures.length}${failures.length === 50 ? '+' : ''} failure(s) since ${from}:`,
          ...failures.map((f) => `• ${describeFailureRecord(f, options.timeZone)}`),
        ].join('\n');
  return { since: since.toISOString(), count: failures.length, failures, summary };
}

/**
 * The failures not yet reported to the owner, marked reported now, unless a report went out within `minMinutes`
 * (then none: the reports are rate-limited). Empty when there is nothing new.
 */
export async function claimFailuresToReport(db: Queryable, now: Date, minMinutes = 60): Promise<FailureRecord[]> {
  const last = await db.query(`SELECT max(reported_at) AS at FROM assistant.failures`);
  const lastAt = last.rows[0].at as Date | null;
  if (lastAt && now.getTime() - lastAt.getTime() < minMinutes * 60_000) return [];
  const claimed = await db.query(
    `UPDATE assistant.failures SET reported_at = $1
      WHERE id IN (SELECT id FROM assistant.failures WHERE reported_at IS NULL AND occurred_at <= $1
                    ORDER BY occurred_at LIMIT 50 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [now],
  );
  return claimed.rows.map(toRecord).sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}
