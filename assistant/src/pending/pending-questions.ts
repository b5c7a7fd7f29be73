// Pending questions: what a run asked the user and waits on (a one-time code, an approval, a free question). One
// mechanism for every feature that pauses for the user. An incoming message is matched against them before it is
// stored as a turn: on Telegram any message answers (a reply to a question's message answers that one, a plain
// message the oldest, unless the question is answered by reply only); on the webhook only a message with `reply_to`.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getInstanceSettings } from '../settings/settings';
import { optionalInt, optionalText, requireText, requireUserId } from '../validate';

export const QUESTION_KINDS = ['one_time_code', 'approval', 'question'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** What a redacted answer is stored as, in turns and anywhere else a person or the model could read it. */
export const REDACTED_CODE = '[one-time code, redacted]';

export const DEFAULT_QUESTION_TTL_SECONDS = 300;

export interface PendingQuestion {
  id: string;
  userId: string;
  kind: QuestionKind;
  question: string;
  channelMessageId: string | null;
  /** The turn whose run asked (null when asked outside a run). */
  turnId: number | null;
  /** Which time this is that the run asks for a one-time code (1 the first time). */
  attempt: number;
  createdAt: string;
  expiresAt: string;
  answeredAt: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireQuestionId(value: unknown, field = 'replyTo'): string {
  if (typeof value !== 'string' || !UUID.test(value.trim())) {
    throw new AssistantInputError(field, 'must be the id of a question the assistant asked (a UUID)');
  }
  return value.trim().toLowerCase();
}

function toQuestion(row: Record<string, unknown>): PendingQuestion {
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);
  return {
    id: row.id as string,
    userId: row.user_id as string,
    kind: row.kind as QuestionKind,
    question: row.question as string,
    channelMessageId: (row.channel_message_id as string | null) ?? null,
    turnId: row.turn_id === null || row.turn_id === undefined ? null : Number(row.turn_id),
    attempt: Number(row.attempt ?? 1),
    createdAt: iso(row.created_at)!,
    expiresAt: iso(row.expires_at)!,
    answeredAt: iso(row.answered_at),
  };
}

export interface AskInput {
  kind?: unknown;
  question?: unknown;
  expiresInSeconds?: unknown;
  /** The turn whose run asks: the webhook answers that turn's caller with needs_input. */
  turnId?: unknown;
  attempt?: unknown;
  /** Only a reply to the question's own message answers it (on Telegram a plain message then stays a message). */
  answerByReply?: boolean;
  now?: Date;
}

/** Records a question the user must answer; it expires after `expiresInSeconds` (default 5 minutes). */
export async function askUser(db: Queryable, userIdInput: unknown, input: AskInput): Promise<PendingQuestion> {
  const userId = requireUserId(userIdInput);
  const kind = input.kind ?? 'question';
  if (typeof kind !== 'string' || !(QUESTION_KINDS as readonly string[]).includes(kind)) {
    throw new AssistantInputError('kind', `must be one of ${QUESTION_KINDS.join(', ')}`);
  }
  const question = requireText(input.question, 'question', 4000);
  const ttl =
    optionalInt(input.expiresInSeconds, 'expiresInSeconds', 1, 86_400) ??
    (await getInstanceSettings(db)).questionTtlSeconds;
  const turnId = optionalInt(input.turnId, 'turnId', 1, Number.MAX_SAFE_INTEGER);
  const attempt = optionalInt(input.attempt, 'attempt', 1, 100) ?? 1;
  const now = input.now ?? new Date();
  const result = await db.query(
    `INSERT INTO assistant.pending_questions
       (user_id, kind, question, created_at, expires_at, turn_id, attempt, answer_by_reply)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
        AND ($6::bigint IS NULL OR EXISTS (SELECT 1 FROM assistant.turns WHERE id = $6 AND user_id = $1))
     RETURNING *`,
    [
      userId,
      kind,
      question,
      now,
      new Date(now.getTime() + ttl * 1000),
      turnId ?? null,
      attempt,
      input.answerByReply === true,
    ],
  );
  if (result.rows.length === 0) {
    if (turnId !== undefined) {
      const user = await db.query('SELECT 1 FROM assistant.users WHERE id = $1', [userId]);
      if (user.rows.length > 0) throw new AssistantInputError('turnId', 'no such turn for this user');
    }
    throw new AssistantInputError('userId', 'no such user');
  }
  return toQuestion(result.rows[0]);
}

/** Remembers the channel's id of the message that asked (Telegram's message id), so a reply to it answers it. */
export async function setQuestionMessageId(db: Queryable, questionIdInput: unknown, messageId: unknown): Promise<void> {
  const id = requireQuestionId(questionIdInput, 'questionId');
  const text = optionalText(typeof messageId === 'number' ? String(messageId) : messageId, 'channelMessageId', 40);
  if (!text?.trim())
    throw new AssistantInputError('channelMessageId', 'must be the message id the question was sent as');
  await db.query('UPDATE assistant.pending_questions SET channel_message_id = $2 WHERE id = $1', [id, text.trim()]);
}

export interface QuestionMatch {
  /** The question this message answers, locked until the caller's transaction ends. */
  question: PendingQuestion;
  /** Whether the answer must be stored redacted (a one-time code). */
  redact: boolean;
}

export interface MatchInput {
  /** Webhook: the question id the caller answers. */
  replyTo?: unknown;
  /** Telegram: the id of the message the user replied to. */
  replyToMessageId?: unknown;
  /** Telegram: a plain message answers the oldest open question. */
  plainMessageAnswers: boolean;
  now?: Date;
}

/**
 * Finds the open question an incoming message answers, if any (call inside the transaction that stores the turn).
 * An explicit `replyTo` that is unknown, already answered or expired is an error naming the field.
 */
export async function matchPendingQuestion(
  db: Queryable,
  userId: string,
  input: MatchInput,
): Promise<QuestionMatch | undefined> {
  const now = input.now ?? new Date();
  const match = (row: Record<string, unknown> | undefined) =>
    row ? { question: toQuestion(row), redact: row.kind === 'one_time_code' } : undefined;
  if (input.replyTo !== undefined && input.replyTo !== null && input.replyTo !== '') {
    const id = requireQuestionId(input.replyTo);
    const found = await db.query(
      'SELECT * FROM assistant.pending_questions WHERE id = $1 AND user_id = $2 FOR UPDATE',
      [id, userId],
    );
    const row = found.rows[0];
    if (!row) throw new AssistantNotFoundError('replyTo', 'no question with this id was asked of this user');
    if (row.answered_at) throw new AssistantInputError('replyTo', 'this question was already answered');
    if ((row.expires_at as Date) <= now) {
      throw new AssistantInputError('replyTo', `this question expired at ${(row.expires_at as Date).toISOString()}`);
    }
    return match(row);
  }
  const open = `user_id = $1 AND answered_at IS NULL AND expires_at > $2`;
  if (input.replyToMessageId !== undefined && input.replyToMessageId !== null && input.replyToMessageId !== '') {
    const replied = await db.query(
      `SELECT * FROM assistant.pending_questions WHERE ${open} AND channel_message_id = $3 FOR UPDATE`,
      [userId, now, String(input.replyToMessageId)],
    );
    if (replied.rows[0]) return match(replied.rows[0]);
  }
  if (!input.plainMessageAnswers) return undefined;
  const oldest = await db.query(
    `SELECT * FROM assistant.pending_questions WHERE ${open} AND NOT answer_by_reply
      ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
    [userId, now],
  );
  return match(oldest.rows[0]);
}

/** Marks the question answered by this turn and keeps the answer for the waiting step. */
export async function recordAnswer(
  db: Queryable,
  questionId: string,
  answer: string,
  turnId: number,
  now = new Date(),
) {
  await db.query(
    `UPDATE assistant.pending_questions SET answered_at = $2, answer = $3, answer_turn_id = $4 WHERE id = $1`,
    [questionId, now, answer, turnId],
  );
}

export interface TakenAnswer {
  /** `taken`: answered, and the answer was already taken by an earlier step. */
  status: 'answered' | 'waiting' | 'expired' | 'taken';
  answer?: string;
}

/** The waiting step's side: the answer once (then cleared, so a code is not kept), or why there is none. */
export async function takeAnswer(db: Queryable, userIdInput: unknown, questionIdInput: unknown, now = new Date()) {
  const userId = requireUserId(userIdInput);
  const id = requireQuestionId(questionIdInput, 'questionId');
  const taken = await db.query<{ answer: string | null; answered_at: Date | null; expires_at: Date }>(
    `UPDATE assistant.pending_questions q SET answer = NULL
       FROM (SELECT id, answer FROM assistant.pending_questions WHERE id = $1 AND user_id = $2 FOR UPDATE) old
      WHERE q.id = old.id
      RETURNING old.answer, q.answered_at, q.expires_at`,
    [id, userId],
  );
  const row = taken.rows[0];
  if (!row) throw new AssistantNotFoundError('questionId', 'no such question for this user');
  if (row.answered_at && row.answer !== null) return { status: 'answered', answer: row.answer } as TakenAnswer;
  if (row.answered_at) return { status: 'taken' } as TakenAnswer;
  if (row.expires_at <= now) return { status: 'expired' } as TakenAnswer;
  return { status: 'waiting' } as TakenAnswer;
}

export interface AnswerWait {
  /** When to stop waiting; the question's own expiry is the default (and the latest). */
  deadline?: Date;
  /** First poll interval; doubles up to 500 ms. */
  pollMs?: number;
  signal?: AbortSignal;
  leaveAnswer?: boolean;
}

/**
 * Waits for the user's answer: `answered` (the answer, taken once), `taken` (an earlier step took it), `expired`
 * (the question's time ran out: a late message starts a new turn instead), or `waiting` when the caller's deadline
 * came first. With `leaveAnswer` the
 * answer stays for the step that uses it (a one-time code is typed by the browser step, never passed around).
 */
export async function waitForAnswer(
  db: Queryable,
  userIdInput: unknown,
  questionIdInput: unknown,
  options: AnswerWait = {},
): Promise<TakenAnswer> {
  let wait = options.pollMs ?? 50;
  for (;;) {
    const taken = options.leaveAnswer
      ? await answerState(db, userIdInput, questionIdInput)
      : await takeAnswer(db, userIdInput, questionIdInput);
    if (taken.status !== 'waiting') return taken;
    const left = (options.deadline?.getTime() ?? Number.POSITIVE_INFINITY) - Date.now();
    if (left <= 0 || options.signal?.aborted) return taken;
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
    wait = Math.min(wait * 2, 500);
  }
}

/**
 * The run that asked stopped waiting (stopped, or past its deadline): an open question expires now, so a late answer
 * is refused as expired instead of being passed to nobody. False when it was answered or had expired already.
 */
export async function withdrawQuestion(
  db: Queryable,
  userIdInput: unknown,
  questionIdInput: unknown,
  now = new Date(),
): Promise<boolean> {
  const userId = requireUserId(userIdInput);
  const id = requireQuestionId(questionIdInput, 'questionId');
  const withdrawn = await db.query(
    `UPDATE assistant.pending_questions SET expires_at = $3
      WHERE id = $1 AND user_id = $2 AND answered_at IS NULL AND expires_at > $3`,
    [id, userId, now],
  );
  return withdrawn.rowCount === 1;
}

/** Whether the question was answered, without taking the answer. */
async function answerState(db: Queryable, userIdInput: unknown, questionIdInput: unknown): Promise<TakenAnswer> {
  const userId = requireUserId(userIdInput);
  const id = requireQuestionId(questionIdInput, 'questionId');
  const found = await db.query<{ answered_at: Date | null; expires_at: Date }>(
    'SELECT answered_at, expires_at FROM assistant.pending_questions WHERE id = $1 AND user_id = $2',
    [id, userId],
  );
  const row = found.rows[0];
  if (!row) throw new AssistantNotFoundError('questionId', 'no such question for this user');
  if (row.answered_at) return { status: 'answered' };
  return { status: row.expires_at <= new Date() ? 'expired' : 'waiting' };
}

/** The open question the run of this turn is waiting on, if any (the webhook answers its caller with it). */
export async function openQuestionOfTurn(
  db: Queryable,
  userId: string,
  turnId: number,
  now = new Date(),
): Promise<PendingQuestion | undefined> {
  const rows = await db.query(
    `SELECT * FROM assistant.pending_questions
      WHERE user_id = $1 AND turn_id = $2 AND answered_at IS NULL AND expires_at > $3 ORDER BY created_at, id LIMIT 1`,
    [userId, turnId, now],
  );
  return rows.rows[0] ? toQuestion(rows.rows[0]) : undefined;
}

export async function listOpenQuestions(db: Queryable, userIdInput: unknown, now = new Date()) {
  const userId = requireUserId(userIdInput);
  const rows = await db.query(
    `SELECT * FROM assistant.pending_questions
      WHERE user_id = $1 AND answered_at IS NULL AND expires_at > $2 ORDER BY created_at, id`,
    [userId, now],
  );
  return rows.rows.map(toQuestion);
}
