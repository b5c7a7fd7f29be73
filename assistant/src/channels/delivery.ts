// Delivering an outbox message on its channel through the contract: the channel's send, and its outcome recorded
// as the delivery receipt (delivered with the channel's message ids, retried, failed, or unknown).
import type { Queryable } from '../storage/db';
import { recordSendOutcome, type OutboxMessage, type SendOutcome } from '../delivery/outbox';
import type { ChannelAdapter } from './contract';

/** Sends `message` with `channel` (a push channel); a pull channel's message waits to be listed. */
export async function sendOnChannel(channel: ChannelAdapter, message: OutboxMessage): Promise<SendOutcome> {
  if (!channel.send || channel.limits.delivery !== 'push') {
    return { status: 'failed', error: `a ${message.channel} message is not sent; it waits in the outbox to be pulled` };
  }
  return channel.send(message.target ?? '', { text: message.text, outbox: message });
}

/** Sends and records the receipt in the outbox; returns the row as it now is. */
export async function deliverOnChannel(
  db: Queryable,
  channel: ChannelAdapter,
  message: OutboxMessage,
  options: { now: Date; maxAttempts: number; retrySeconds: number },
): Promise<OutboxMessage> {
  return recordSendOutcome(db, message, await sendOnChannel(channel, message), options);
}
