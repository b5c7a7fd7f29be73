// Delivering an outbox message on its channel through the contract, and its receipt in the outbox. A push channel
// (Telegram, the webhook's callback) sends, and its send's outcome is the receipt (delivered with the channel's
// message ids, retried, failed, or unknown). A pull channel (the web chat) is handed the stored messages, and the
// receipt is its word that it has shown them: each becomes delivered on that channel, once.
import type { Queryable } from '../storage/db';
import { httpError, type HttpResult } from '../channel/http-result';
import { MAX_ID_LENGTH } from '../channel/webhook-request';
import { AssistantInputError } from '../errors';
import { getOutboxMessage, recordSendOutcome, type OutboxMessage, type SendOutcome } from '../delivery/outbox';
import type { ChannelAdapter } from './contract';

/** The most messages one receipt names (a page shows at most 100 per events call). */
export const MAX_RECEIPT_IDS = 500;
/** The channels whose receipts come from their client (they pull; the others record their own sends). */
export const PULL_CHANNELS = ['web'] as const;

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

/**
 * A pull channel's receipt: `userId`'s messages `ids` were shown on `channel`. A stored message becomes delivered
 * there (one attempt, at `now`); a message already delivered, or one a push channel carries (the user's Telegram
 * chat, their callback), keeps its own receipt. Returns the user's messages among `ids` as they now are, oldest
 * first; ids that are not the user's are left out.
 */
export async function recordShownOnChannel(
  db: Queryable,
  channel: ChannelAdapter,
  userId: string,
  ids: readonly number[],
  now: Date,
): Promise<OutboxMessage[]> {
  if (channel.limits.delivery !== 'pull') {
    throw new AssistantInputError('channel', `${channel.name} sends its messages itself: its receipt is the send's`);
  }
  if (ids.length === 0) return [];
  await db.query(
    `UPDATE assistant.outbox SET status = 'delivered', channel = $3, attempts = attempts + 1, delivered_at = $4,
            last_error = NULL
      WHERE user_id = $1 AND id = ANY($2::bigint[]) AND status = 'stored' AND channel = 'pull'`,
    [userId, ids, channel.name, now],
  );
  const mine = await db.query(
    `SELECT id FROM assistant.outbox WHERE user_id = $1 AND id = ANY($2::bigint[]) ORDER BY id`,
    [userId, ids],
  );
  const rows: OutboxMessage[] = [];
  for (const row of mine.rows) rows.push(await getOutboxMessage(db, Number(row.id)));
  return rows;
}

export interface ReceiptsRequest {
  /** The user's id on the webhook (`user_id`). */
  externalId: string;
  channel: (typeof PULL_CHANNELS)[number];
  ids: number[];
}

const invalid = (field: string, message: string): HttpResult =>
  httpError(400, 'invalid_request', `${field}: ${message}`, field);

/** The body of POST /webhook/agent/outbox/receipts {user_id, channel, shown: [ids]}; a 400 names the bad field. */
export function parseReceiptsRequest(body: unknown): ReceiptsRequest | HttpResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid('body', 'must be a JSON object like {"user_id": "owner", "channel": "web", "shown": [12, 13]}');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !['user_id', 'channel', 'shown'].includes(key));
  if (unknown !== undefined) return invalid(unknown, 'is not a known field (use user_id, channel, shown)');
  const userId = fields.user_id;
  if (typeof userId !== 'string' || userId.trim() === '' || userId.length > MAX_ID_LENGTH) {
    return invalid('user_id', `must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  if (!(PULL_CHANNELS as readonly unknown[]).includes(fields.channel)) {
    return invalid(
      'channel',
      `must be ${PULL_CHANNELS.map((name) => `"${name}"`).join(' or ')} (a channel that pulls)`,
    );
  }
  const shown = fields.shown;
  if (!Array.isArray(shown) || shown.length === 0 || shown.length > MAX_RECEIPT_IDS) {
    return invalid('shown', `must be a list of 1 to ${MAX_RECEIPT_IDS} outbox message ids`);
  }
  if (!shown.every((id) => Number.isSafeInteger(id) && (id as number) > 0)) {
    return invalid('shown', 'must hold outbox message ids (whole numbers from 1)');
  }
  return {
    externalId: userId.trim(),
    channel: fields.channel as ReceiptsRequest['channel'],
    ids: [...new Set(shown as number[])],
  };
}
