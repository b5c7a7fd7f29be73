// Reserving a model call against every cap that covers it, before it is sent, and settling it to what the provider
// reported afterwards. Race-free: one transaction locks the caps' current windows (in cap id order, so two calls never
// deadlock), checks spent + reserved + this call's largest cost against each limit, and adds the reservation; two
// calls racing at a cap cannot both pass. Crossing 50, 75, 90 or 100 % of a cap tells the owner once per window.
import type { Pool, PoolClient } from 'pg';
import type { ModelCaller } from '../gateway/caller';
import { queueMessage } from '../delivery/outbox';
import { operatorUserId } from '../pending/approvals';
import { describeInstant } from '../schedule/zone';
import { withTransaction, type Queryable } from '../storage/db';
import { offerRaise } from './raise';

export interface BudgetCharge {
  caller: ModelCaller;
  /** The call's largest possible cost: measured prompt plus largest output, priced. */
  tokens: number;
  micros: number;
  now: Date;
}

interface HeldWindow {
  capId: number;
  startsAt: Date;
  tokens: number;
  micros: number;
}

export interface Reservation {
  held: HeldWindow[];
}

export interface BudgetNotice {
  capId: number;
  percent: number;
  text: string;
}

export const THRESHOLDS = [50, 75, 90, 100];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A call refused because a cap's window has no room for it; the message says which, until when, and what to do. */
export class BudgetExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetExceededError';
  }
}

export interface CapWindow {
  cap_id: string;
  scope: 'instance' | 'user' | 'job';
  user_id: string | null;
  job: string | null;
  period: 'day' | 'month';
  limit_micros: string | null;
  limit_tokens: string | null;
  zone: string;
  starts_at: Date;
  ends_at: Date;
  spent_micros: string;
  reserved_micros: string;
  spent_tokens: string;
  reserved_tokens: string;
  /** What the owner added to this window by approving a raise. */
  raised_micros: string;
  raised_tokens: string;
  notified_percent: number;
}

/** The current window of each cap covering the caller, locked (the window rows are created when missing). */
async function lockWindows(client: PoolClient, caller: ModelCaller, now: Date): Promise<CapWindow[]> {
  const user = caller.user && UUID.test(caller.user) ? caller.user : null;
  await client.query(
    `WITH covering AS (
       SELECT c.*, coalesce(CASE WHEN c.scope = 'user' THEN us.time_zone END, i.time_zone, 'UTC') AS zone
         FROM assistant.budget_caps c
         LEFT JOIN assistant.instance_settings i ON true
         LEFT JOIN assistant.user_settings us ON us.user_id = c.user_id
        WHERE c.scope = 'instance' OR (c.scope = 'user' AND c.user_id = $1::uuid)
           OR (c.scope = 'job' AND ($2 = c.job OR $2 LIKE c.job || ':%'))),
     bounds AS (
       SELECT covering.*,
              date_trunc(period, $3::timestamptz AT TIME ZONE zone) AT TIME ZONE zone AS starts,
              (date_trunc(period, $3::timestamptz AT TIME ZONE zone) + ('1 ' || period)::interval) AT TIME ZONE zone
                AS ends
         FROM covering)
     INSERT INTO assistant.budget_windows (cap_id, starts_at, ends_at)
     SELECT id, starts, ends FROM bounds ORDER BY id
     ON CONFLICT (cap_id, starts_at) DO NOTHING`,
    [user, caller.job, now],
  );
  const windows = await client.query<CapWindow>(
    `SELECT w.cap_id, c.scope, c.user_id, c.job, c.period, c.limit_micros, c.limit_tokens,
            coalesce(CASE WHEN c.scope = 'user' THEN us.time_zone END, i.time_zone, 'UTC') AS zone,
            w.starts_at, w.ends_at, w.spent_micros, w.reserved_micros, w.spent_tokens, w.reserved_tokens,
            w.raised_micros, w.raised_tokens, w.notified_percent
       FROM assistant.budget_windows w
       JOIN assistant.budget_caps c ON c.id = w.cap_id
       LEFT JOIN assistant.instance_settings i ON true
       LEFT JOIN assistant.user_settings us ON us.user_id = c.user_id
      WHERE (c.scope = 'instance' OR (c.scope = 'user' AND c.user_id = $1::uuid)
             OR (c.scope = 'job' AND ($2 = c.job OR $2 LIKE c.job || ':%')))
        AND w.starts_at <= $3 AND w.ends_at > $3
      ORDER BY w.cap_id
      FOR UPDATE OF w`,
    [user, caller.job, now],
  );
  return windows.rows;
}

const n = (value: string | null) => (value === null ? null : Number(value));

/** Reserves the charge against every covering cap, or throws BudgetExceededError (telling the owner once). */
export async function reserveBudget(pool: Pool, charge: BudgetCharge): Promise<Reservation> {
  const outcome = await withTransaction(pool, async (client) => {
    const windows = await lockWindows(client, charge.caller, charge.now);
    const full = windows.find((w) => !hasRoom(w, charge));
    if (full) return { refusal: full, held: [] as HeldWindow[] };
    for (const w of windows)
      await client.query(
        `UPDATE assistant.budget_windows
            SET reserved_micros = reserved_micros + $3, reserved_tokens = reserved_tokens + $4
          WHERE cap_id = $1 AND starts_at = $2`,
        [w.cap_id, w.starts_at, charge.micros, charge.tokens],
      );
    const held = windows.map((w) => ({
      capId: Number(w.cap_id),
      startsAt: w.starts_at,
      tokens: charge.tokens,
      micros: charge.micros,
    }));
    return { refusal: undefined, held };
  });
  if (outcome.refusal) {
    const toOwner = refusalText(outcome.refusal, charge.caller, 'owner');
    await offerRaise(pool, outcome.refusal, toOwner, charge.now).catch(() => undefined);
    throw new BudgetExceededError(refusalText(outcome.refusal, charge.caller));
  }
  return { held: outcome.held };
}

/** A window's limits: the cap's own plus what the owner raised it by; null: no limit of that kind. */
export function windowLimits(w: CapWindow): { micros: number | null; tokens: number | null } {
  const micros = n(w.limit_micros);
  const tokens = n(w.limit_tokens);
  return {
    micros: micros === null ? null : micros + Number(w.raised_micros ?? 0),
    tokens: tokens === null ? null : tokens + Number(w.raised_tokens ?? 0),
  };
}

/** Whether the window can take the charge at its largest; a free call (a local model) passes a money cap. */
function hasRoom(w: CapWindow, charge: BudgetCharge): boolean {
  const { micros: moneyLimit, tokens: tokenLimit } = windowLimits(w);
  const money = Number(w.spent_micros) + Number(w.reserved_micros);
  const tokens = Number(w.spent_tokens) + Number(w.reserved_tokens);
  if (moneyLimit !== null && charge.micros > 0 && money + charge.micros > moneyLimit) return false;
  if (tokenLimit !== null && (tokens + charge.tokens > tokenLimit || tokens >= tokenLimit)) return false;
  return true;
}

/** Replaces the reservation by what the call really cost; tells the owner of each threshold crossed, once. */
export async function settleBudget(
  pool: Pool,
  reservation: Reservation,
  actual: { tokens: number; micros: number },
): Promise<BudgetNotice[]> {
  if (reservation.held.length === 0) return [];
  const crossed = await withTransaction(pool, async (client) => {
    const notices: Array<{ window: CapWindow; percent: number }> = [];
    for (const held of [...reservation.held].sort((a, b) => a.capId - b.capId)) {
      const updated = await client.query<CapWindow>(
        `UPDATE assistant.budget_windows w
            SET reserved_micros = greatest(0, reserved_micros - $3), spent_micros = spent_micros + $4,
                reserved_tokens = greatest(0, reserved_tokens - $5), spent_tokens = spent_tokens + $6
          FROM assistant.budget_caps c
          WHERE w.cap_id = $1 AND w.starts_at = $2 AND c.id = w.cap_id
          RETURNING w.cap_id, c.scope, c.user_id, c.job, c.period, c.limit_micros, c.limit_tokens, 'UTC' AS zone, w.starts_at,
                    w.ends_at, w.spent_micros, w.reserved_micros, w.spent_tokens, w.reserved_tokens,
                    w.raised_micros, w.raised_tokens, w.notified_percent`,
        [held.capId, held.startsAt, held.micros, actual.micros, held.tokens, actual.tokens],
      );
      const w = updated.rows[0];
      if (!w) continue;
      const percent = usedPercent(w);
      const reached = THRESHOLDS.filter((t) => percent >= t && t > w.notified_percent).at(-1);
      if (reached === undefined) continue;
      await client.query(
        'UPDATE assistant.budget_windows SET notified_percent = $3 WHERE cap_id = $1 AND starts_at = $2',
        [held.capId, held.startsAt, reached],
      );
      notices.push({ window: w, percent: reached });
    }
    return notices;
  });
  const notices: BudgetNotice[] = [];
  for (const { window, percent } of crossed) {
    const text = thresholdText(window, percent);
    await tellOwner(pool, window, percent, text).catch(() => undefined);
    notices.push({ capId: Number(window.cap_id), percent, text });
  }
  return notices;
}

/** The share of the window's limits (raises included) spent, in percent: the larger of money and tokens. */
export function usedPercent(w: CapWindow): number {
  const limits = windowLimits(w);
  const shares: number[] = [];
  if (limits.micros !== null) shares.push(limits.micros === 0 ? 100 : (100 * Number(w.spent_micros)) / limits.micros);
  if (limits.tokens !== null) shares.push(limits.tokens === 0 ? 100 : (100 * Number(w.spent_tokens)) / limits.tokens);
  return Math.max(0, ...shares);
}

export const formatUsd = (micros: number): string =>
  `$${(micros / 1_000_000).toFixed(micros > 0 && micros < 10_000_000 ? 4 : 2)}`;

/**
 * "The model budget for today ($1.00)", "Your model budget for this month (…)", "The check job's model budget …"; to
 * the owner, a user's cap is "user <id>'s".
 */
export function capName(w: CapWindow, audience: 'caller' | 'owner' = 'caller'): string {
  const period = w.period === 'day' ? 'today' : 'this month';
  const user = audience === 'owner' ? `user ${w.user_id?.slice(0, 8)}'s` : 'your';
  const whose = w.scope === 'user' ? user : w.scope === 'job' ? `the ${w.job} job's` : 'the';
  const raised = Number(w.raised_micros ?? 0) > 0 || Number(w.raised_tokens ?? 0) > 0 ? ', raised' : '';
  return `${whose} model budget for ${period} (${describeLimits(windowLimits(w))}${raised})`;
}

/** "$1.00 / 20,000 tokens": the limits a window has. */
export function describeLimits(limits: { micros: number | null; tokens: number | null }): string {
  return [
    limits.micros !== null ? formatUsd(limits.micros) : null,
    limits.tokens !== null ? `${limits.tokens.toLocaleString('en')} tokens` : null,
  ]
    .filter(Boolean)
    .join(' / ');
}

function refusalText(w: CapWindow, caller: ModelCaller, audience: 'caller' | 'owner' = 'caller'): string {
  const spent = Number(w.spent_micros);
  const held = Number(w.reserved_micros);
  const used = `${formatUsd(spent)} and ${Number(w.spent_tokens).toLocaleString('en')} tokens used`;
  const limits = windowLimits(w);
  const state =
    limits.micros !== null && spent >= limits.micros
      ? `is spent (${used})`
      : limits.tokens !== null && Number(w.spent_tokens) >= limits.tokens
        ? `is spent (${used})`
        : `cannot cover this call at its largest (${used}, ${formatUsd(held)} held by calls under way)`;
  const setting = `ASSISTANT_BUDGET_${w.period === 'day' ? 'DAY' : 'MONTH'}_USD`;
  const text =
    `${capName(w, audience)} ${state}; this ${caller.job} call was not made. It resets at ${describeInstant(w.ends_at, w.zone)}; ` +
    `the owner can raise it (by a yes to the question they are asked, or by ${setting} for the assistant's, or a cap for a user or a job).`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function thresholdText(w: CapWindow, percent: number): string {
  const used = `${formatUsd(Number(w.spent_micros))} and ${Number(w.spent_tokens).toLocaleString('en')} tokens`;
  return `💸 ${percent} % of ${capName(w, 'owner')} is used (${used}).`;
}

/** The owner (the operator, on their channel) hears of it once per cap, window and threshold. */
export async function tellOwner(db: Queryable, w: CapWindow, percent: number, text: string): Promise<void> {
  const ownerId = await operatorUserId(db);
  if (!ownerId) return;
  await queueMessage(db, ownerId, {
    kind: 'notice',
    text,
    data: { cap_id: Number(w.cap_id), percent },
    dedupeKey: `budget:${w.cap_id}:${w.starts_at.toISOString()}:${percent}`,
  });
}
