// The webhook's answer for a turn it waited on: the reply (with the files the run made); the question the run waits
// on (needs_input); the failure (with the turn id, so the caller can refer to
// the stored message); or, when the deadline passed first, 504 with the turn id: the run goes on, and its reply goes
// to the caller through the outbox. GET /webhook/agent/turn answers a turn's state (turnStateAnswer).
import { describeFailure } from './failures';
import type { HttpResult } from './http-result';

export interface AwaitedTurn {
  turnId: number;
  status: 'pending' | 'answered' | 'failed';
  reply: string | null;
  error: string | null;
  deadlineSeconds?: number;
  sessionId?: string;
  /** `kind` (approval, one_time_code, question) lets a client show buttons or a field (the web chat does). */
  question?: { id: string; kind?: string; question: string; expiresAt: string };
  attachments?: Array<{ fileName: string; mimeType: string; data: string }>;
}

function needsInput(question: NonNullable<AwaitedTurn['question']>): Record<string, unknown> {
  const kind = question.kind ? { kind: question.kind } : {};
  return { id: question.id, ...kind, question: question.question, expires_at: question.expiresAt };
}

export function turnAnswer(turn: AwaitedTurn, caller: { userId: string; sessionId: string }): HttpResult {
  if (turn.status === 'answered') {
    const reply = turn.reply?.trim() ? turn.reply : '(The assistant gave an empty answer.)';
    const body: Record<string, unknown> = {
      reply,
      user_id: caller.userId,
      session_id: caller.sessionId,
      turn_id: turn.turnId,
    };
    if (turn.attachments?.length) {
      body.attachments = turn.attachments.map((file) => ({
        file_name: file.fileName,
        mime_type: file.mimeType,
        data_base64: file.data,
      }));
    }
    return { statusCode: 200, body };
  }
  if (turn.status === 'failed') {
    const failure = describeFailure(turn.error);
    return { statusCode: failure.statusCode, body: { ...failure.body, turn_id: turn.turnId } };
  }
  if (turn.question) {
    // The run waits for the caller: answer with POST /webhook/agent {message, user_id, reply_to: <id>}.
    return {
      statusCode: 200,
      body: {
        needs_input: needsInput(turn.question),
        user_id: caller.userId,
        session_id: caller.sessionId,
        turn_id: turn.turnId,
      },
    };
  }
  const waited = turn.deadlineSeconds ? ` within ${turn.deadlineSeconds} s` : '';
  return {
    statusCode: 504,
    body: {
      error: {
        code: 'reply_pending',
        message:
          `No reply${waited}: the assistant is still working on turn ${turn.turnId}. Its reply will be sent to your ` +
          'callback URL (or kept in GET /webhook/agent/outbox); ' +
          `GET /webhook/agent/turn?user_id=…&turn_id=${turn.turnId} returns it once it is there.`,
      },
      turn_id: turn.turnId,
    },
  };
}

/** GET /webhook/agent/turn: the turn's state, 200 whatever it is (answered, failed, pending or waiting for input). */
export function turnStateAnswer(turn: AwaitedTurn, caller: { userId: string }): HttpResult {
  const body: Record<string, unknown> = {
    turn_id: turn.turnId,
    user_id: caller.userId,
    session_id: turn.sessionId,
    status: turn.status,
  };
  if (turn.status === 'answered') {
    const answered = turnAnswer(turn, { userId: caller.userId, sessionId: turn.sessionId ?? '' }).body as Record<
      string,
      unknown
    >;
    body.reply = answered.reply;
    if (answered.attachments) body.attachments = answered.attachments;
  } else if (turn.status === 'failed') {
    body.error = describeFailure(turn.error).body.error;
  } else if (turn.question) {
    body.needs_input = needsInput(turn.question);
  }
  return { statusCode: 200, body };
}
