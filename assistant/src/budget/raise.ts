// Raising a spent cap from chat. A refusal asks the owner, on their channel, whether to add the cap's own limit once
// more to the window that refused (an approval question answered only by a reply to it); their yes to that very
// question raises the window, by code, in the transaction that stores the answer. The model takes no part. One open
// question per window; after a no the window is not offered again; a raised window spent again is offered again.
import type { Pool } from 'pg';
import { askUser } from '../pending/pending-questions';
import { isApproval, operatorUserId } from '../pending/approvals';
import { describeInstant } from '../schedule/zone';
import { withTransaction, type Queryable } from '../storage/db';
import { queueMessage } from '../delivery/outbox';
import { THRESHOLDS, capName, describeLimits, tellOwner, usedPercent, windowLimits, type CapWindow } from './reserve';

/** The longest a raise question stays open (a pending question's own limit); a month's window is asked again. */
const LONGEST_QUESTION_SECONDS = 86_400;

/** Tells the owner of a refusal and, unless a question is open or was declined in this window, asks to raise it. */
export async function offerRaise(pool: Pool, w: CapWindow, refusal: string, now: Date): Promise<void> {
  const add = { micros: Number(w.limit_micros ?? 0), tokens: Number(w.limit_tokens ?? 0) };
  if (add.micros === 0 && add.tokens === 0) {
    // A cap of nothing is a ban, not a budget: the owner hears of it once per window, with nothing to approve.
    await tellOwner(pool, w, 100, refusal);
    return;
  }
  await withTransaction(pool, async (client) => {
    const ownerId = await operatorUserId(client);
    if (!ownerId) return;
    await client.query('SELECT 1 FROM assistant.budget_windows WHERE cap_id = $1 AND starts_at = $2 FOR UPDATE', [
      w.cap_id,
      w.starts_at,
    ]);
    const told = await client.query(
      `SELECT 1 FROM assistant.budget_raise_offers o JOIN assistant.pending_questions q ON q.id = o.question_id
        WHERE o.cap_id = $1 AND o.starts_at = $2
          AND (o.decision = 'declined' OR (o.decision IS NULL AND q.answered_at IS NULL AND q.expires_at > $3))`,
      [w.cap_id, w.starts_at, now],
    );
    if ((told.rowCount ?? 0) > 0) return;
    const raisedTo = describeLimits({
      micros: w.limit_micros === null ? null : windowLimits(w).micros! + add.micros,
      tokens: w.limit_tokens === null ? null : windowLimits(w).tokens! + add.tokens,
    });
    const question =
      `Raise ${capName(w, 'owner')} by ${describeLimits({
        micros: w.limit_micros === null ? null : add.micros,
        tokens: w.limit_tokens === null ? null : add.tokens,
      })} ` +
      `to ${raisedTo} until it resets at ${describeInstant(w.ends_at, w.zone)}? ` +
      'Reply to this message with yes to raise it; any other reply leaves it as it is.';
    const secondsLeft = Math.ceil((w.ends_at.getTime() - now.getTime()) / 1000);
    const asked = await askUser(client, ownerId, {
      kind: 'approval',
      question,
      expiresInSeconds: Math.max(60, Math.min(LONGEST_QUESTION_SECONDS, secondsLeft)),
      answerByReply: true,
      now,
    });
    await client.query(
      `INSERT INTO assistant.budget_raise_offers (question_id, cap_id, starts_at, add_micros, add_tokens)
       VALUES ($1, $2, $3, $4, $5)`,
      [asked.id, w.cap_id, w.starts_at, add.micros, add.tokens],
    );
    await queueMessage(client, ownerId, {
      kind: 'notice',
      text: `${refusal}\n\n${question}`,
      data: { cap_id: Number(w.cap_id), percent: 100, question_id: asked.id },
      dedupeKey: `budget-raise:${asked.id}`,
    });
  });
}

export interface RaiseDecision {
  raised: boolean;
  /** What the owner is told back. */
  reply: string;
}

/**
 * The owner's answer to a raise question (call in the transaction that stores it): a yes adds the offer to its
 * window and lets the 75/90/100 % notices come again under the new limit; anything else declines. Undefined when
 * the question offered no raise, or was decided already.
 */
export async function decideRaise(
  db: Queryable,
  questionId: string,
  answer: string,
): Promise<RaiseDecision | undefined> {
  const offer = await db.query<{ cap_id: string; starts_at: Date; add_micros: string; add_tokens: string }>(
    `SELECT cap_id, starts_at, add_micros, add_tokens FROM assistant.budget_raise_offers
      WHERE question_id = $1 AND decision IS NULL FOR UPDATE`,
    [questionId],
  );
  const row = offer.rows[0];
  if (!row) return undefined;
  const raised = isApproval(answer);
  await db.query('UPDATE assistant.budget_raise_offers SET decision = $2 WHERE question_id = $1', [
    questionId,
    raised ? 'raised' : 'declined',
  ]);
  const window = await raisedWindow(db, row, raised);
  const until = describeInstant(window.ends_at, window.zone);
  return raised
    ? { raised, reply: `Raised: ${capName(window, 'owner')} now holds until it resets at ${until}.` }
    : { raised, reply: `Left as it is: ${capName(window, 'owner')} stays spent until it resets at ${until}.` };
}

/** The window after the decision: raised by the offer on a yes, its notices set to what the new limit has reached. */
async function raisedWindow(
  db: Queryable,
  offer: { cap_id: string; starts_at: Date; add_micros: string; add_tokens: string },
  raise: boolean,
): Promise<CapWindow> {
  const updated = await db.query<CapWindow>(
    `UPDATE assistant.budget_windows w
        SET raised_micros = raised_micros + $3, raised_tokens = raised_tokens + $4
       FROM assistant.budget_caps c
       LEFT JOIN assistant.instance_settings i ON true
       LEFT JOIN assistant.user_settings us ON us.user_id = c.user_id
      WHERE w.cap_id = $1 AND w.starts_at = $2 AND c.id = w.cap_id
      RETURNING w.cap_id, c.scope, c.user_id, c.job, c.period, c.limit_micros, c.limit_tokens,
                coalesce(CASE WHEN c.scope = 'user' THEN us.time_zone END, i.time_zone, 'UTC') AS zone,
                w.starts_at, w.ends_at, w.spent_micros, w.reserved_micros, w.spent_tokens, w.reserved_tokens,
                w.raised_micros, w.raised_tokens, w.notified_percent`,
    [offer.cap_id, offer.starts_at, raise ? offer.add_micros : 0, raise ? offer.add_tokens : 0],
  );
  const window = updated.rows[0];
  if (raise) {
    const reached = THRESHOLDS.filter((t) => usedPercent(window) >= t).at(-1) ?? 0;
    await db.query('UPDATE assistant.budget_windows SET notified_percent = $3 WHERE cap_id = $1 AND starts_at = $2', [
      offer.cap_id,
      offer.starts_at,
      reached,
    ]);
  }
  return window;
}
