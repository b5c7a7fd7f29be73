// Who an email reaches, decided by code: a reply in the user's own thread, to the user, goes out at once; an address
// that is not the user's (someone on the Cc of their email, a new recipient) is a third-party send: the copy to it is
// held in the outbox (status stored, not sent) and an approval question is asked in the pending-question store; a
// yes by reply releases the copy to the outbox's next tick, a no (or no answer before it expires) fails it.
import type { Queryable } from '../storage/db';
import { askUser, type PendingQuestion } from '../pending/pending-questions';
import { isApproval } from '../pending/approvals';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { requireUserId } from '../validate';
import { normaliseAddress, type EmailToSend } from './email';

/** The recipients that are not the user: each needs the user's yes first. */
export function thirdPartyRecipients(recipients: readonly string[], userAddresses: readonly string[]): string[] {
  const user = new Set(userAddresses.map((address) => normaliseAddress(address)).filter(Boolean));
  const others = recipients.map((address) => normaliseAddress(address) ?? address.trim());
  return [...new Set(others.filter((address) => address !== '' && !user.has(address)))];
}

export interface HeldEmail {
  question: PendingQuestion;
  /** The outbox rows held for the answer, one per recipient. */
  outboxIds: number[];
}

const HELD_ERROR_NO = 'not sent: the user did not approve this recipient';

/** The question asked: the addresses named, the answer spelled out (email has no buttons). */
export function recipientsQuestion(addresses: readonly string[]): string {
  const list = addresses.join(', ');
  return `Shall I also send this reply to ${list}? ${addresses.length > 1 ? 'They are' : 'That is'} not you. Answer yes or no (reply to this email).`;
}

/**
 * Holds `email` for `addresses` until the user approves: one outbox row per address (channel email, status
 * stored), and an approval question answered by a reply to the email that asks it.
 */
export async function holdForApproval(
  db: Queryable,
  userIdInput: unknown,
  addresses: readonly string[],
  email: Pick<EmailToSend, 'subject' | 'text' | 'inReplyTo' | 'references'>,
  now: Date,
): Promise<HeldEmail> {
  const userId = requireUserId(userIdInput);
  const targets = addresses.map((address, index) => {
    const normal = normaliseAddress(address);
    if (!normal) throw new AssistantInputError(`addresses[${index}]`, `"${address}" is not an email address`);
    return normal;
  });
  if (targets.length === 0) throw new AssistantInputError('addresses', 'name at least one recipient to hold for');
  const question = await askUser(db, userId, {
    kind: 'approval',
    question: recipientsQuestion(targets),
    answerByReply: true,
    expiresInSeconds: 86_400,
    now,
  });
  const thread = { subject: email.subject, in_reply_to: email.inReplyTo ?? null, references: email.references ?? [] };
  const outboxIds: number[] = [];
  for (const target of targets) {
    const row = await db.query<{ id: string }>(
      `INSERT INTO assistant.outbox (user_id, kind, text, data, channel, target, status, created_at)
       VALUES ($1, 'reply', $2, $3, 'email', $4, 'stored', $5) RETURNING id`,
      [userId, email.text, JSON.stringify({ held_by_question: question.id, email_thread: thread }), target, now],
    );
    outboxIds.push(Number(row.rows[0].id));
  }
  return { question, outboxIds };
}

/** Remembers the Message-ID of the email that asked, so that a reply to it answers the question. */
export async function setAskingEmail(db: Queryable, questionId: string, messageId: string): Promise<void> {
  await db.query('UPDATE assistant.pending_questions SET channel_message_id = $2 WHERE id = $1', [
    questionId,
    messageId,
  ]);
}

/**
 * Settles the copies held by `questionId` once it is answered: a yes makes them due now (the outbox sends them), any
 * other answer fails them. Returns what became of them.
 */
export async function settleHeldEmails(
  db: Queryable,
  userIdInput: unknown,
  questionId: string,
  answer: string,
  now: Date,
): Promise<{ released: number; refused: number }> {
  const userId = requireUserId(userIdInput);
  const asked = await db.query<{ answered_at: Date | null }>(
    'SELECT answered_at FROM assistant.pending_questions WHERE id::text = $1 AND user_id = $2',
    [questionId, userId],
  );
  if (!asked.rows[0]) throw new AssistantNotFoundError('questionId', 'no such question for this user');
  if (!asked.rows[0].answered_at) throw new AssistantInputError('questionId', 'the question is not answered yet');
  const yes = isApproval(answer);
  const updated = await db.query(
    `UPDATE assistant.outbox SET status = $3, next_attempt_at = $4, last_error = $5
      WHERE user_id = $1 AND status = 'stored' AND channel = 'email' AND data->>'held_by_question' = $2`,
    [userId, questionId, yes ? 'pending' : 'failed', now, yes ? null : HELD_ERROR_NO],
  );
  const count = updated.rowCount ?? 0;
  return yes ? { released: count, refused: 0 } : { released: 0, refused: count };
}
