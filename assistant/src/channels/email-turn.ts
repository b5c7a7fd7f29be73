// An email turn's answer, sent in the user's thread: the email entry stores the message, starts the run and then
// follows its turn. A question the run asks (an approval, a code) is emailed with its answer spelled out ("Answer
// yes or no (reply to this email)"), its Message-ID kept so that a reply to it answers it; the turn is followed on
// until it is answered or failed, and the reply (or one sentence on why there is none) is emailed. Past the deadline
// the turn is left to the outbox (its late reply comes by email) and the user is told so. Anyone else on the user's
// email (To, Cc) gets nothing unless the user says yes to the question that comes with the reply (email-recipients).
import type { Pool } from 'pg';

import { describeFailure } from '../channel/failures';
import { awaitTurn, getTurn, type TurnState } from '../turns/lifecycle';
import { renderEmail, replyTo, sendEmail, type EmailChannelConfig } from './email';
import { holdForApproval, setAskingEmail, thirdPartyRecipients } from './email-recipients';
import type { InboundMessage, OutboundMessage } from './contract';

export const EMAIL_STILL_WORKING = 'This is taking a while. I will email you the answer as soon as it is ready.';

export interface FollowEmailTurnInput {
  userId: string;
  turnId: number;
  /** The email the turn answers: its sender and metadata.email (Message-ID, subject, references). */
  inbound: Pick<InboundMessage, 'externalId' | 'metadata'>;
  deadline: Date;
  pollMs?: number;
  signal?: AbortSignal;
}

export interface FollowedEmailTurn {
  status: TurnState['status'] | 'left';
  /** The questions emailed on the way (their ids). */
  asked: string[];
  /** The Message-IDs of the email(s) sent last. */
  sent: string | null;
  error?: string;
}

const otherRecipients = (inbound: FollowEmailTurnInput['inbound']): string[] => {
  const email = inbound.metadata.email as { other_recipients?: unknown } | undefined;
  return Array.isArray(email?.other_recipients) ? email.other_recipients.filter((a) => typeof a === 'string') : [];
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(
  config: EmailChannelConfig,
  inbound: FollowEmailTurnInput['inbound'],
  message: OutboundMessage,
): Promise<string> {
  const text = renderEmail(message)
    .map((part) => part.text)
    .join('');
  const outcome = await sendEmail(config, replyTo(inbound, text));
  if (outcome.status !== 'delivered') throw new Error(`the email reply was not sent: ${outcome.error}`);
  return outcome.channelMessageId ?? '';
}

export async function followTurnOnEmail(
  pool: Pool,
  config: EmailChannelConfig,
  input: FollowEmailTurnInput,
): Promise<FollowedEmailTurn> {
  const asked: string[] = [];
  const pollMs = input.pollMs ?? 250;
  for (;;) {
    const state = await getTurn(pool, input.userId, input.turnId);
    if (state.status === 'answered') {
      const reply = state.reply?.trim() || '(no reply)';
      const others = thirdPartyRecipients(otherRecipients(input.inbound), [input.inbound.externalId]);
      if (others.length === 0)
        return { status: 'answered', asked, sent: await send(config, input.inbound, { text: reply }) };
      // Others were on her email: the reply goes to her, the copy for them waits for her yes.
      const held = await holdForApproval(pool, input.userId, others, replyTo(input.inbound, reply), new Date());
      const sent = await send(config, input.inbound, { text: `${reply}\n\n${held.question.question}` });
      await setAskingEmail(pool, held.question.id, sent.split(',').at(-1)!);
      return { status: 'answered', asked: [...asked, held.question.id], sent };
    }
    if (state.status === 'failed') {
      const apology = describeFailure(state.error ?? 'unknown error').apology;
      const sent = await send(config, input.inbound, { text: apology });
      return { status: 'failed', asked, sent, error: state.error ?? undefined };
    }
    if (state.question && !asked.includes(state.question.id)) {
      const { id, kind, question } = state.question;
      const sent = await send(config, input.inbound, { text: question, question: { id, kind, question } });
      // A reply to the asking email (its last part) answers the question.
      await setAskingEmail(pool, id, sent.split(',').at(-1)!);
      asked.push(id);
    }
    if (Date.now() >= input.deadline.getTime() || input.signal?.aborted) {
      // Marks the caller as gone (a pending turn without an open question): its late reply goes by the outbox.
      const left = await awaitTurn(pool, input.userId, input.turnId, { deadline: new Date(0) });
      if (left.status !== 'pending') continue;
      const sent = await send(config, input.inbound, { text: EMAIL_STILL_WORKING });
      return { status: 'left', asked, sent };
    }
    await sleep(pollMs);
  }
}
