// The webhook's answer for a turn it waited on: the reply; the failure (with the turn id, so the caller can refer to
// the stored message); or, when the deadline passed first, 504 with the turn id: the run goes on and keeps its reply
// with that turn.
import { describeFailure } from './failures';
import type { HttpResult } from './http-result';

export interface AwaitedTurn {
  turnId: number;
  status: 'pending' | 'answered' | 'failed';
  reply: string | null;
  error: string | null;
  deadlineSeconds?: number;
}

export function turnAnswer(turn: AwaitedTurn, caller: { userId: string; sessionId: string }): HttpResult {
  if (turn.status === 'answered') {
    const reply = turn.reply?.trim() ? turn.reply : '(The assistant gave an empty answer.)';
    return {
      statusCode: 200,
      body: { reply, user_id: caller.userId, session_id: caller.sessionId, turn_id: turn.turnId },
    };
  }
  if (turn.status === 'failed') {
    const failure = describeFailure(turn.error);
    return { statusCode: failure.statusCode, body: { ...failure.body, turn_id: turn.turnId } };
  }
  const waited = turn.deadlineSeconds ? ` within ${turn.deadlineSeconds} s` : '';
  return {
    statusCode: 504,
    body: {
      error: {
        code: 'reply_pending',
        message:
          `No reply${waited}: the assistant is still working on it and keeps the reply with turn ${turn.turnId} ` +
          '(ask again, e.g. "what did you answer?", to get it)',
      },
      turn_id: turn.turnId,
    },
  };
}
