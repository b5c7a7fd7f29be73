// Approvals: what only the operator may do, and their yes. The operator is the user holding the owner's Telegram chat
// or the API identity "owner"; an approval is their answer to a pending question of kind "approval" that names what
// it approves. Installing experts and activating built tools go through here.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getInstanceSettings } from '../settings/settings';
import { listIdentities } from '../identities/identities';
import { requireUserId } from '../validate';

/** The API user_id the installer links to the owner's Telegram chat; without a Telegram owner it is the operator. */
export const OPERATOR_API_USER_ID = 'owner';

const YES = new Set([
  'yes',
  'y',
  'yeah',
  'yep',
  'ok',
  'okay',
  'sure',
  'approve',
  'approved',
  'install',
  'ja',
  'oui',
  'si',
  'sí',
]);

const NEGATIONS = new Set(['no', 'not', "don't", 'dont', 'never', 'nein', 'non']);

/** A yes approves ("yes", "OK, install it", "Yes please"): the first word says yes and no word says no. */
export function isApproval(answer: unknown): boolean {
  if (typeof answer !== 'string') return false;
  const words = answer
    .toLowerCase()
    .split(/[\s,.!;:]+/u)
    .filter((word) => word !== '');
  return words.length > 0 && YES.has(words[0]) && !words.some((word) => NEGATIONS.has(word));
}

/** True for the operator: the user holding the owner's Telegram chat, or the API identity "owner". */
export async function isOperator(db: Queryable, userId: unknown): Promise<boolean> {
  const id = requireUserId(userId);
  const owner = (await getInstanceSettings(db)).ownerTelegramChatId;
  const identities = [`api:${OPERATOR_API_USER_ID}`, ...(owner ? [`telegram:${owner}`] : [])];
  const found = await db.query('SELECT 1 FROM assistant.identities WHERE user_id = $1 AND identity = ANY($2::text[])', [
    id,
    identities,
  ]);
  return (found.rowCount ?? 0) > 0;
}

/** The operator's user: the one holding the owner's Telegram chat, else the API identity "owner"; none yet: undefined. */
export async function operatorUserId(db: Queryable): Promise<string | undefined> {
  const owner = (await getInstanceSettings(db)).ownerTelegramChatId;
  const found = await db.query<{ user_id: string }>(
    `SELECT user_id FROM assistant.identities WHERE identity = ANY($1::text[])
      ORDER BY identity LIKE 'telegram:%' DESC LIMIT 1`,
    [[`api:${OPERATOR_API_USER_ID}`, ...(owner ? [`telegram:${owner}`] : [])]],
  );
  return found.rows[0]?.user_id;
}

/** Who a user is, for whatever is shared by identity (a site login's `users`): their identities, and "owner" when
 * they are the operator. */
export async function holderOf(db: Queryable, userId: unknown): Promise<Set<string>> {
  const holder = new Set(await listIdentities(db, userId));
  if (await isOperator(db, userId)) holder.add(OPERATOR_API_USER_ID);
  return holder;
}

export async function requireOperator(db: Queryable, userId: unknown, what: string): Promise<void> {
  if (!(await isOperator(db, userId))) {
    throw new AssistantInputError('userId', `only the operator can ${what}; ask them to do it`);
  }
}

/**
 * Checks that questionId is the operator's answered approval question about `subject` (its question names it as
 * `marker`), so neither the model nor another user can approve. With `askedTo`, it must have been asked to that user
 * instead (a user confirming what concerns only them).
 */
export async function requireApprovalQuestion(
  db: Queryable,
  questionIdInput: unknown,
  subject: { marker: string; what: string; askedTo?: string },
): Promise<void> {
  const questionId = typeof questionIdInput === 'string' ? questionIdInput.trim() : '';
  if (!/^[0-9a-f-]{36}$/i.test(questionId)) throw new AssistantInputError('questionId', 'must be a question id');
  const found = await db.query<{ user_id: string; kind: string; question: string; answered_at: Date | null }>(
    'SELECT user_id, kind, question, answered_at FROM assistant.pending_questions WHERE id = $1',
    [questionId],
  );
  const question = found.rows[0];
  if (!question) throw new AssistantNotFoundError('questionId', 'no such question');
  if (question.kind !== 'approval' || !question.question.includes(subject.marker)) {
    throw new AssistantInputError('questionId', `is not the approval question for ${subject.what}`);
  }
  if (subject.askedTo !== undefined) {
    if (question.user_id !== subject.askedTo) throw new AssistantInputError('questionId', 'was not asked to this user');
  } else if (!(await isOperator(db, question.user_id))) {
    throw new AssistantInputError('questionId', 'was not asked to the operator');
  }
  if (!question.answered_at) throw new AssistantInputError('questionId', 'has not been answered');
}
