// Spending caps (assistant.budget_caps): per instance, user or job, per day or month, in money and/or tokens. Set by
// the operator's settings at start (the instance's: ASSISTANT_BUDGET_DAY_USD, …) and by the owner (a user's or a
// job's); every model call is reserved against each cap that covers it (./reserve.ts).
import { AssistantInputError } from '../errors';
import type { Queryable } from '../storage/db';
import { requireUserId } from '../validate';

export const CAP_SCOPES = ['instance', 'user', 'job'] as const;
export const CAP_PERIODS = ['day', 'month'] as const;
export type CapScope = (typeof CAP_SCOPES)[number];
export type CapPeriod = (typeof CAP_PERIODS)[number];

export interface SpendingCap {
  id: number;
  scope: CapScope;
  userId: string | null;
  job: string | null;
  period: CapPeriod;
  /** US dollars; null: no money limit. */
  limitUsd: number | null;
  limitTokens: number | null;
}

export interface CapInput {
  scope: unknown;
  userId?: unknown;
  job?: unknown;
  period: unknown;
  /** US dollars (e.g. 0.5); null or undefined: no money limit. */
  limitUsd?: unknown;
  limitTokens?: unknown;
}

/** A job as the gateway's caller suffix names it: heartbeat, action, expert (every expert), expert:researcher, … */
export const JOB_NAME = /^[a-z][a-z0-9_-]{0,30}(:[A-Za-z0-9_.-]{1,64})?$/;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new AssistantInputError(field, `must be one of ${allowed.join(', ')}`);
}

function optionalAmount(value: unknown, field: string, max: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const amount = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > max)
    throw new AssistantInputError(field, `must be a number from 0 to ${max}`);
  return amount;
}

/** Sets (creates or replaces) a cap; a cap with neither limit is an error (remove it instead). */
export async function setCap(db: Queryable, input: CapInput): Promise<SpendingCap> {
  const scope = oneOf(input.scope, CAP_SCOPES, 'scope');
  const period = oneOf(input.period, CAP_PERIODS, 'period');
  const userId = scope === 'user' ? requireUserId(input.userId) : null;
  let job: string | null = null;
  if (scope === 'job') {
    if (typeof input.job !== 'string' || !JOB_NAME.test(input.job.trim()))
      throw new AssistantInputError('job', 'must be a job name, e.g. heartbeat, action, check or expert:researcher');
    job = input.job.trim();
  }
  const limitUsd = optionalAmount(input.limitUsd, 'limitUsd', 1_000_000);
  const limitTokens = optionalAmount(input.limitTokens, 'limitTokens', 1e12);
  if (limitUsd === null && limitTokens === null)
    throw new AssistantInputError('limitUsd', 'a cap needs a limit in dollars (limitUsd) or tokens (limitTokens)');
  const result = await db.query(
    `INSERT INTO assistant.budget_caps (scope, user_id, job, period, limit_micros, limit_tokens)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (scope, user_id, job, period) DO UPDATE
       SET limit_micros = EXCLUDED.limit_micros, limit_tokens = EXCLUDED.limit_tokens, updated_at = clock_timestamp()
     RETURNING *`,
    [
      scope,
      userId,
      job,
      period,
      limitUsd === null ? null : Math.round(limitUsd * 1_000_000),
      limitTokens === null ? null : Math.round(limitTokens),
    ],
  );
  return toCap(result.rows[0]);
}

/** Removes a cap; true when there was one. */
export async function removeCap(db: Queryable, input: Omit<CapInput, 'limitUsd' | 'limitTokens'>): Promise<boolean> {
  const scope = oneOf(input.scope, CAP_SCOPES, 'scope');
  const period = oneOf(input.period, CAP_PERIODS, 'period');
  const result = await db.query(
    `DELETE FROM assistant.budget_caps
      WHERE scope = $1 AND period = $2 AND user_id IS NOT DISTINCT FROM $3 AND job IS NOT DISTINCT FROM $4`,
    [scope, period, scope === 'user' ? requireUserId(input.userId) : null, scope === 'job' ? input.job : null],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function listCaps(db: Queryable): Promise<SpendingCap[]> {
  const result = await db.query('SELECT * FROM assistant.budget_caps ORDER BY id');
  return result.rows.map(toCap);
}

function toCap(row: Record<string, unknown>): SpendingCap {
  return {
    id: Number(row.id),
    scope: row.scope as CapScope,
    userId: (row.user_id as string | null) ?? null,
    job: (row.job as string | null) ?? null,
    period: row.period as CapPeriod,
    limitUsd: row.limit_micros === null ? null : Number(row.limit_micros) / 1_000_000,
    limitTokens: row.limit_tokens === null ? null : Number(row.limit_tokens),
  };
}
