// A Slack turn's answer, sent where the user wrote (their DM, or the thread): the Slack entry starts the run and then
// follows its turn. A question the run asks (an approval, a code) is posted with its buttons, its ts kept so a reply
// in its thread answers it too, and the turn followed on until it is answered or failed: the reply (or one sentence
// on why there is none) is posted. Past the deadline the turn is left to the outbox (its late reply goes to the
// user's Slack DM), and the user is told so.
import type { Pool } from 'pg';

import { describeFailure } from '../channel/failures';
import { setQuestionMessageId } from '../pending/pending-questions';
import { awaitTurn, getTurn, type TurnState } from '../turns/lifecycle';
import { renderSlack, sendSlackParts, type SlackBotConfig } from './slack';

export const SLACK_STILL_WORKING = 'This is taking a while. I will send the answer here as soon as it is ready.';

export interface FollowTurnInput {
  userId: string;
  turnId: number;
  /** "<channel>" or "<channel>/<thread ts>", as the inbound message's reply_target says. */
  target: string;
  deadline: Date;
  pollMs?: number;
  signal?: AbortSignal;
}

export interface FollowedTurn {
  status: TurnState['status'] | 'left';
  /** The questions posted on the way (their ids). */
  asked: string[];
  /** The ts values of the reply's parts, or of the sentence sent instead. */
  sent: string | null;
  error?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts `text` (with a question's buttons) and returns the outcome's ts list, or throws with Slack's reason. */
async function post(bot: SlackBotConfig, target: string, message: Parameters<typeof renderSlack>[0]): Promise<string> {
  const outcome = await sendSlackParts(bot, target, renderSlack(message), message.question?.id);
  if (outcome.status !== 'delivered') throw new Error(`the Slack reply was not sent: ${outcome.error}`);
  return outcome.channelMessageId ?? '';
}

export async function followTurnOnSlack(
  pool: Pool,
  bot: SlackBotConfig,
  input: FollowTurnInput,
): Promise<FollowedTurn> {
  const asked: string[] = [];
  const pollMs = input.pollMs ?? 250;
  for (;;) {
    const state = await getTurn(pool, input.userId, input.turnId);
    if (state.status === 'answered') {
      const sent = await post(bot, input.target, { text: state.reply?.trim() || '(no reply)' });
      return { status: 'answered', asked, sent };
    }
    if (state.status === 'failed') {
      const sent = await post(bot, input.target, { text: describeFailure(state.error ?? 'unknown error').apology });
      return { status: 'failed', asked, sent, error: state.error ?? undefined };
    }
    if (state.question && !asked.includes(state.question.id)) {
      const { id, kind, question } = state.question;
      const sent = await post(bot, input.target, { text: question, question: { id, kind, question } });
      // A reply in the question's thread (or to its last part) answers it, as a reply to Telegram's message does.
      await setQuestionMessageId(pool, id, sent.split(',').at(-1));
      asked.push(id);
    }
    if (Date.now() >= input.deadline.getTime() || input.signal?.aborted) {
      // Marks the caller as gone (a pending turn without an open question): its late reply goes by the outbox.
      const left = await awaitTurn(pool, input.userId, input.turnId, { deadline: new Date(0) });
      if (left.status !== 'pending') continue;
      const sent = await post(bot, input.target, { text: SLACK_STILL_WORKING });
      return { status: 'left', asked, sent };
    }
    await sleep(pollMs);
  }
}
