// A turn's life: the user's message is stored the moment it arrives (pending), before any model or tool runs; the
// run then answers it or fails it with the error. A message that answers a pending question is matched first and
// stored as that answer (a one-time code only redacted), never as a new turn; an answer to a budget raise question
// raises the cap (or not) there and then.
import type { Pool } from 'pg';
import { decideRaise } from '../budget/raise';
import { queueMessage } from '../delivery/outbox';
import { recordFailure } from '../failures/failures';
import { withTransaction, type Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import {
  matchPendingQuestion,
  openQuestionOfTurn,
  recordAnswer,
  REDACTED_CODE,
  type QuestionKind,
} from '../pending/pending-questions';
import { getInstanceSettings, MAX_RUN_LIMIT_SECONDS } from '../settings/settings';
import { scrubSecrets } from '../privacy/scrub';
import { optionalText, requirePositiveInt, requireText, requireUserId } from '../validate';
import { MAX_MESSAGE_CHARS, requireMetadata, requireSessionId } from './turns';
import { turnAttachments, type TurnAttachment } from './attachments';

/** The longest a turn's run may take (the agent workflow's execution timeout); a turn still pending after it failed. */
export const TURN_RUN_LIMIT_SECONDS = MAX_RUN_LIMIT_SECONDS;
export const MAX_ERROR_CHARS = 2000;

export type TurnStatus = 'pending' | 'answered' | 'failed';

export interface IncomingMessage {
  sessionId?: unknown;
  message?: unknown;
  channel?: unknown;
  metadata?: unknown;
  /** Webhook: the pending question this message answers. */
  replyTo?: unknown;
  /** Telegram: the message id the user replied to. */
  replyToMessageId?: unknown;
  now?: Date;
}

export type Received =
  | { kind: 'turn'; turnId: number; sessionId: string; createdAt: string }
  | {
      kind: 'answer';
      turnId: number;
      sessionId: string;
      questionId: string;
      questionKind: QuestionKind;
      /** The turn whose run asked and now goes on (null for a question asked outside a run). */
      runTurnId: number | null;
      /** What the user is told back: the receipt, or what their answer did (a budget raise). */
      reply: string;
    };

/** What a user who answered a question is told, unless their answer did something by itself. */
export const ANSWER_RECEIPT = 'Thanks, I have passed your answer on.';

/** Checks a message against the instance's cap (the max_message_chars setting) before anything runs. */
export async function requireMessage(db: Queryable, value: unknown): Promise<string> {
  const { maxMessageChars } = await getInstanceSettings(db);
  if (typeof value === 'string' && value.length > maxMessageChars) {
    throw new AssistantInputError(
      'message',
      `is ${value.length} characters; the limit is ${maxMessageChars} (setting maxMessageChars)`,
    );
  }
  return requireText(value, 'message', Math.min(maxMessageChars, MAX_MESSAGE_CHARS));
}

/** Stores an incoming message: as the answer to a pending question, or as a new pending turn. */
export async function receiveMessage(pool: Pool, userIdInput: unknown, input: IncomingMessage): Promise<Received> {
  const userId = requireUserId(userIdInput);
  const sessionId = requireSessionId(input.sessionId);
  const channel = optionalText(input.channel, 'channel', 40)?.trim() || 'api';
  const metadata = requireMetadata(input.metadata);
  const message = await requireMessage(pool, input.message);
  const now = input.now ?? new Date();
  return withTransaction(pool, async (client) => {
    // A run stopped by its time limit (or a crash) cannot mark its turn: turns pending past the limit failed. A run
    // that waited for its user gets the limit again from the end of its last wait.
    await client.query(
      `UPDATE assistant.turns t SET status = 'failed', finished_at = $2::timestamptz, error = $4
        WHERE t.user_id = $1 AND t.role = 'user' AND t.status = 'pending'
          AND t.created_at < $2::timestamptz - make_interval(secs => $3::double precision)
          AND NOT EXISTS (SELECT 1 FROM assistant.pending_questions q
                           WHERE q.turn_id = t.id AND q.user_id = $1
                             AND LEAST(COALESCE(q.answered_at, q.expires_at), q.expires_at)
                                 > $2::timestamptz - make_interval(secs => $3::double precision))`,
      [
        userId,
        now,
        TURN_RUN_LIMIT_SECONDS,
        `no reply within the run limit of ${TURN_RUN_LIMIT_SECONDS} s (the run was stopped)`,
      ],
    );
    const match = await matchPendingQuestion(client, userId, {
      replyTo: input.replyTo,
      replyToMessageId: input.replyToMessageId,
      plainMessageAnswers: channel === 'telegram',
      now,
    });
    const inserted = await client.query<{ id: string; created_at: Date }>(
      `INSERT INTO assistant.turns (user_id, session_id, role, content, channel, metadata, status, redacted, finished_at)
       SELECT $1, $2, 'user', $3, $4, $5::jsonb, $6, $7, $8
        WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
       RETURNING id, created_at`,
      [
        userId,
        sessionId,
        match?.redact ? REDACTED_CODE : message,
        channel,
        metadata,
        match ? 'answered' : 'pending',
        match?.redact ?? false,
        match ? now : null,
      ],
    );
    if (inserted.rows.length === 0) throw new AssistantInputError('userId', 'no such user');
    const turnId = Number(inserted.rows[0].id);
    if (!match) return { kind: 'turn', turnId, sessionId, createdAt: inserted.rows[0].created_at.toISOString() };
    await recordAnswer(client, match.question.id, message.trim(), turnId, now);
    const raise =
      match.question.kind === 'approval' && match.question.turnId === null
        ? await decideRaise(client, match.question.id, message.trim())
        : undefined;
    return {
      kind: 'answer',
      turnId,
      sessionId,
      questionId: match.question.id,
      questionKind: match.question.kind,
      runTurnId: match.question.turnId,
      reply: raise?.reply ?? ANSWER_RECEIPT,
    };
  });
}

interface TurnRow {
  id: string;
  session_id: string;
  status: TurnStatus;
  error: string | null;
  channel: string;
  caller_left_at: Date | null;
}

async function lockedTurn(db: Queryable, userId: string, turnId: number): Promise<TurnRow> {
  const found = await db.query<TurnRow>(
    `SELECT id, session_id, status, error, channel, caller_left_at FROM assistant.turns
      WHERE id = $1 AND user_id = $2 AND role = 'user' FOR UPDATE`,
    [turnId, userId],
  );
  if (!found.rows[0]) throw new AssistantNotFoundError('turnId', 'no such turn for this user');
  return found.rows[0];
}

/** What n8n's AI Agent (LangChain's AgentExecutor) answers when a run used all its steps: not a reply to store. */
export const AGENT_STOPPED_OUTPUTS = [
  'Agent stopped due to max iterations.',
  'Agent stopped due to iteration limit or time limit.',
];

/** The reply instead, in plain words: the run stopped, and what it did is kept. */
export const STEPS_USED_UP_REPLY =
  'I used all the steps I may take for one message and stopped before finishing. What I did so far is kept (what I ' +
  'stored stays stored, an open browser page stays open for a while), so ask me to go on from there.';

/**
 * Stores the reply and marks the turn answered. After the webhook caller stopped waiting (their deadline passed), the
 * reply is also queued in the outbox for them (`lateReply`): their callback URL, Telegram, or for pulling.
 */
export async function finishTurn(pool: Pool, userIdInput: unknown, turnIdInput: unknown, replyInput: unknown) {
  const userId = requireUserId(userIdInput);
  const turnId = requirePositiveInt(turnIdInput, 'turnId');
  const given = requireText(replyInput, 'reply', MAX_MESSAGE_CHARS);
  const reply = AGENT_STOPPED_OUTPUTS.includes(given.trim()) ? STEPS_USED_UP_REPLY : given;
  return withTransaction(pool, async (client) => {
    const turn = await lockedTurn(client, userId, turnId);
    if (turn.status === 'answered') throw new AssistantInputError('turnId', 'this turn was already answered');
    const stored = await client.query<{ id: string }>(
      `INSERT INTO assistant.turns (user_id, session_id, role, content, channel, status, finished_at, answers_turn_id)
       VALUES ($1, $2, 'assistant', $3, $4, 'answered', clock_timestamp(), $5) RETURNING id`,
      [userId, turn.session_id, reply, turn.channel, turnId],
    );
    await client.query(
      `UPDATE assistant.turns SET status = 'answered', error = NULL, finished_at = clock_timestamp() WHERE id = $1`,
      [turnId],
    );
    const lateReply = turn.caller_left_at !== null && turn.channel !== 'telegram';
    if (lateReply)
      await queueMessage(client, userId, {
        kind: 'reply',
        text: reply,
        data: { turn_id: turnId, session_id: turn.session_id },
        dedupeKey: `reply:${turnId}`,
      });
    return { turnId, status: 'answered' as TurnStatus, replyId: Number(stored.rows[0].id), lateReply };
  });
}

/**
 * Marks a pending turn failed with the (already scrubbed) error; an answered turn stays answered, unless the failure
 * came after the reply (`afterReply`: its delivery failed; the reply stays stored).
 */
export async function failTurn(
  pool: Pool,
  userIdInput: unknown,
  turnIdInput: unknown,
  errorInput: unknown,
  options: { afterReply?: boolean } = {},
) {
  const userId = requireUserId(userIdInput);
  const turnId = requirePositiveInt(turnIdInput, 'turnId');
  const raw = typeof errorInput === 'string' ? errorInput : JSON.stringify(errorInput ?? 'unknown error');
  const error = scrubSecrets(raw.trim() || 'unknown error').slice(0, MAX_ERROR_CHARS);
  return withTransaction(pool, async (client) => {
    const turn = await lockedTurn(client, userId, turnId);
    if (turn.status === 'answered' && !options.afterReply) return { turnId, status: turn.status };
    // n8n reports a provider's error by its status alone ("Bad request - please check your parameters"); the model
    // gateway's ledger has what the provider (or the gateway) said for this turn's last failed call.
    const said = await client.query<{ error: string; outcome: string }>(
      `SELECT error, outcome FROM assistant.model_calls
        WHERE ref = $1 AND outcome <> 'ok' AND error IS NOT NULL AND at > clock_timestamp() - interval '1 hour'
        ORDER BY id DESC LIMIT 1`,
      [String(turnId)],
    );
    const reason = said.rows[0] && !error.includes(said.rows[0].error) ? `${error} (${said.rows[0].error})` : error;
    await client.query(
      `UPDATE assistant.turns SET status = 'failed', error = $2, finished_at = clock_timestamp() WHERE id = $1`,
      [turnId, reason.slice(0, MAX_ERROR_CHARS)],
    );
    // A spending cap's refusal is named by the gateway's own record (source budget), not twice.
    if (said.rows[0]?.outcome !== 'over_budget' || options.afterReply)
      await recordFailure(client, {
        source: 'turn',
        userId,
        workflow: `turn ${turnId} (${turn.channel})`,
        message: options.afterReply ? `the reply could not be delivered: ${reason}` : reason,
        fingerprint: `${turn.channel}|${reason.replace(/\d+/g, '#').slice(0, 300)}`,
        data: { turn_id: turnId },
      });
    return { turnId, status: 'failed' as TurnStatus };
  });
}

export interface TurnState {
  turnId: number;
  sessionId: string;
  status: TurnStatus;
  reply: string | null;
  error: string | null;
  /** While pending: the question its run waits on (the caller answers it with reply_to). */
  question?: { id: string; kind: QuestionKind; question: string; expiresAt: string };
  /** Once answered: files the run made for it (screenshots). */
  attachments?: TurnAttachment[];
}

export async function getTurn(db: Queryable, userIdInput: unknown, turnIdInput: unknown): Promise<TurnState> {
  const userId = requireUserId(userIdInput);
  const turnId = requirePositiveInt(turnIdInput, 'turnId');
  const found = await db.query<TurnRow & { reply: string | null }>(
    `SELECT t.id, t.session_id, t.status, t.error, t.channel,
            (SELECT r.content FROM assistant.turns r
              WHERE r.answers_turn_id = t.id AND r.user_id = t.user_id ORDER BY r.id LIMIT 1) AS reply
       FROM assistant.turns t WHERE t.id = $1 AND t.user_id = $2 AND t.role = 'user'`,
    [turnId, userId],
  );
  const row = found.rows[0];
  if (!row) throw new AssistantNotFoundError('turnId', 'no such turn for this user');
  const state: TurnState = {
    turnId,
    sessionId: row.session_id,
    status: row.status,
    reply: row.reply,
    error: row.error,
  };
  if (row.status === 'pending') {
    const open = await openQuestionOfTurn(db, userId, turnId);
    if (open) state.question = { id: open.id, kind: open.kind, question: open.question, expiresAt: open.expiresAt };
  }
  if (row.status === 'answered') {
    const files = await turnAttachments(db, userId, turnId);
    if (files.length > 0) state.attachments = files;
  }
  return state;
}

export interface AwaitOptions {
  /** When to give up waiting (the turn goes on). */
  deadline: Date;
  /** First poll interval; doubles up to 250 ms. */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Waits until the turn is answered or failed, its run asks the user something, or the deadline passes (then it
 * returns it still pending).
 */
export async function awaitTurn(db: Queryable, userId: unknown, turnId: unknown, options: AwaitOptions) {
  let wait = options.pollMs ?? 25;
  for (;;) {
    const state = await getTurn(db, userId, turnId);
    const left = options.deadline.getTime() - Date.now();
    if (state.status !== 'pending' || state.question) return state;
    if (left <= 0 || options.signal?.aborted) return (await markCallerLeft(db, state)) ?? getTurn(db, userId, turnId);
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
    wait = Math.min(wait * 2, 250);
  }
}

/**
 * The caller stops waiting for a pending turn: its reply will go through the outbox. Undefined when the turn stopped
 * being pending meanwhile (the caller then gets its state now).
 */
async function markCallerLeft(db: Queryable, state: TurnState): Promise<TurnState | undefined> {
  const marked = await db.query(
    `UPDATE assistant.turns SET caller_left_at = clock_timestamp() WHERE id = $1 AND status = 'pending'`,
    [state.turnId],
  );
  return (marked.rowCount ?? 0) > 0 ? state : undefined;
}
