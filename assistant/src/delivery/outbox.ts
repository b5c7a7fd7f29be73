// The outbox: one row for everything the assistant says on its own (reminders, nudges, action results, briefings),
// and the late replies of webhook turns whose caller stopped waiting.
// A message is queued once per dedupe key, claimed by one tick at a time (SKIP LOCKED), and ends delivered, failed
// (after the attempt limit, with its last error) or unknown (a Telegram send that may have gone out: never repeated).
// Every row stays listable for clients that pull (listOutbox).
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { recordFailure } from '../failures/failures';
import { requireUserId } from '../validate';

export const OUTBOX_KINDS = ['reminder', 'nudge', 'action', 'briefing', 'notice', 'check', 'reply'] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];
export type OutboxChannel = 'telegram' | 'webhook' | 'pull' | 'web' | 'slack' | 'email';
export type OutboxStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'unknown' | 'stored';

export interface OutboxMessage {
  id: number;
  userId: string;
  /** The user's id on the webhook (`user_id` of POST /webhook/agent), or null for a Telegram-only user. */
  apiUserId: string | null;
  kind: OutboxKind;
  text: string;
  data: Record<string, unknown>;
  channel: OutboxChannel;
  /** The chat id or the callback URL the message goes to. */
  target: string | null;
  status: OutboxStatus;
  attempts: number;
  lastError: string | null;
  deliveredAt: string | null;
  channelMessageId: string | null;
  createdAt: string;
}

/** Sending a row that stays in 'sending' this long was interrupted (n8n stopped mid-send). */
export const INTERRUPTED_SEND_MINUTES = 10;

const SELECT = `SELECT o.*, (SELECT substr(identity, 5) FROM assistant.identities i
                 WHERE i.user_id = o.user_id AND identity LIKE 'api:%' ORDER BY created_at LIMIT 1) AS api_user_id
                  FROM assistant.outbox o`;

function toMessage(row: Record<string, unknown>): OutboxMessage {
  return {
    id: Number(row.id),
    userId: row.user_id as string,
    apiUserId: (row.api_user_id as string | null) ?? null,
    kind: row.kind as OutboxKind,
    text: row.text as string,
    data: (row.data as Record<string, unknown>) ?? {},
    channel: row.channel as OutboxChannel,
    target: (row.target as string | null) ?? null,
    status: row.status as OutboxStatus,
    attempts: Number(row.attempts),
    lastError: (row.last_error as string | null) ?? null,
    deliveredAt: row.delivered_at instanceof Date ? row.delivered_at.toISOString() : null,
    channelMessageId: (row.channel_message_id as string | null) ?? null,
    createdAt: (row.created_at as Date).toISOString(),
  };
}

export interface QueueInput {
  kind: unknown;
  text: unknown;
  data?: Record<string, unknown>;
  /** What the message is about ("reminder:42"); a second message with the same key is not queued. */
  dedupeKey?: string | null;
  tickId?: number | null;
}

/**
 * Queues a message for a user on their channel: Telegram if they have a chat, else Slack (a DM to their Slack user
 * id), else their callback URL, else their email address, else the outbox alone (status 'stored', for pulling). Returns the row and whether it was new (false: the key was queued).
 */
export async function queueMessage(
  db: Queryable,
  userIdInput: unknown,
  input: QueueInput,
): Promise<{ message: OutboxMessage; queued: boolean }> {
  const userId = requireUserId(userIdInput);
  if (typeof input.kind !== 'string' || !(OUTBOX_KINDS as readonly string[]).includes(input.kind)) {
    throw new AssistantInputError('kind', `must be one of ${OUTBOX_KINDS.join(', ')}`);
  }
  if (typeof input.text !== 'string' || input.text.trim() === '') {
    throw new AssistantInputError('text', 'must be a non-empty string');
  }
  const inserted = await db.query(
    `WITH target AS (
       SELECT (SELECT substr(identity, 10) FROM assistant.identities
                WHERE user_id = $1 AND identity LIKE 'telegram:%' ORDER BY created_at LIMIT 1) AS chat_id,
              (SELECT substr(identity, 7) FROM assistant.identities
                WHERE user_id = $1 AND identity LIKE 'slack:%' ORDER BY created_at LIMIT 1) AS slack_user,
              (SELECT callback_url FROM assistant.user_settings WHERE user_id = $1) AS callback_url,
              (SELECT substr(identity, 7) FROM assistant.identities
                WHERE user_id = $1 AND identity LIKE 'email:%' ORDER BY created_at LIMIT 1) AS email)
     INSERT INTO assistant.outbox (user_id, kind, text, data, dedupe_key, channel, target, status, tick_id)
     SELECT $1, $2, $3, $4, $5,
            CASE WHEN chat_id IS NOT NULL THEN 'telegram' WHEN slack_user IS NOT NULL THEN 'slack'
                 WHEN callback_url IS NOT NULL THEN 'webhook' WHEN email IS NOT NULL THEN 'email' ELSE 'pull' END,
            coalesce(chat_id, slack_user, callback_url, email),
            CASE WHEN coalesce(chat_id, slack_user, callback_url, email) IS NULL THEN 'stored' ELSE 'pending' END, $6
       FROM target WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    [
      userId,
      input.kind,
      input.text.trim(),
      JSON.stringify(input.data ?? {}),
      input.dedupeKey ?? null,
      input.tickId ?? null,
    ],
  );
  if (inserted.rows[0]) return { message: await getOutboxMessage(db, Number(inserted.rows[0].id)), queued: true };
  if (input.dedupeKey) {
    const existing = await db.query(`${SELECT} WHERE o.dedupe_key = $1`, [input.dedupeKey]);
    if (existing.rows[0]) return { message: toMessage(existing.rows[0]), queued: false };
  }
  throw new AssistantInputError('userId', 'no such user');
}

export async function getOutboxMessage(db: Queryable, id: number): Promise<OutboxMessage> {
  const result = await db.query(`${SELECT} WHERE o.id = $1`, [id]);
  if (!result.rows[0]) throw new AssistantNotFoundError('id', `no outbox message ${id}`);
  return toMessage(result.rows[0]);
}

/**
 * Claims the messages due at `now` (new ones always, retries once their backoff has passed) for sending (status 'sending', one more attempt), so that no other tick takes
 * them. Sends interrupted earlier are settled first: a callback goes back to pending (the client de-duplicates by
 * id), a Telegram message becomes 'unknown' (it may have gone out; exactly-once wins over at-least-once).
 */
export async function claimDueMessages(db: Queryable, now: Date, limit = 50): Promise<OutboxMessage[]> {
  await db.query(
    `UPDATE assistant.outbox SET
       status = CASE WHEN channel = 'webhook' THEN 'pending' ELSE 'unknown' END,
       last_error = CASE WHEN channel = 'webhook' THEN 'the send was interrupted; it is retried'
                    ELSE 'the send was interrupted after it may have reached Telegram; it is not repeated' END
     WHERE status = 'sending' AND claimed_at < $1::timestamptz - make_interval(mins => $2)`,
    [now, INTERRUPTED_SEND_MINUTES],
  );
  const claimed = await db.query(
    `UPDATE assistant.outbox SET status = 'sending', attempts = attempts + 1, claimed_at = $1
      WHERE id IN (SELECT id FROM assistant.outbox WHERE status = 'pending' AND (attempts = 0 OR next_attempt_at <= $1)
                    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [now, limit],
  );
  if (claimed.rows.length === 0) return [];
  const rows = await db.query(`${SELECT} WHERE o.id = ANY($1::bigint[]) ORDER BY o.id`, [
    claimed.rows.map((row) => row.id),
  ]);
  return rows.rows.map(toMessage);
}

/** What one send attempt came to. */
export type SendOutcome =
  | { status: 'delivered'; channelMessageId?: string | null }
  /** Not sent (refused, unreachable, a 5xx or 429): tried again after a backoff, up to the attempt limit. */
  | { status: 'retry'; error: string }
  /** Will never succeed (a 4xx from Telegram, a URL the guard refuses): failed now. */
  | { status: 'failed'; error: string }
  /** It may have gone out (a timeout after the request left): not repeated. */
  | { status: 'unknown'; error: string };

/** The delay before retry `attempt + 1`: `baseSeconds` doubled per attempt already made (30 s, 1, 2, 4 … min). */
export function retryDelaySeconds(attempt: number, baseSeconds: number): number {
  return baseSeconds * 2 ** Math.max(0, attempt - 1);
}

/**
 * Records an attempt's outcome; a retry past `maxAttempts` ends as failed with the last error. A message that ends
 * failed or unknown is also recorded as a failure (failure awareness).
 */
export async function recordSendOutcome(
  db: Queryable,
  message: Pick<OutboxMessage, 'id' | 'attempts' | 'userId' | 'kind' | 'channel'>,
  outcome: SendOutcome,
  options: { now: Date; maxAttempts: number; retrySeconds: number },
): Promise<OutboxMessage> {
  if (outcome.status === 'delivered') {
    await db.query(
      `UPDATE assistant.outbox SET status = 'delivered', delivered_at = $2, channel_message_id = $3, last_error = NULL
        WHERE id = $1`,
      [message.id, options.now, outcome.channelMessageId ?? null],
    );
    // A message that asks a question (a budget raise): a reply to its last part answers that question.
    await db.query(
      `UPDATE assistant.pending_questions q SET channel_message_id = substring($2 from '[^,]*$')
         FROM assistant.outbox o WHERE o.id = $1 AND q.id::text = o.data->>'question_id' AND $2 <> ''`,
      [message.id, outcome.channelMessageId ?? ''],
    );
  } else if (outcome.status === 'retry' && message.attempts < options.maxAttempts) {
    const next = new Date(options.now.getTime() + retryDelaySeconds(message.attempts, options.retrySeconds) * 1000);
    await db.query(
      `UPDATE assistant.outbox SET status = 'pending', next_attempt_at = $2, last_error = $3 WHERE id = $1`,
      [message.id, next, outcome.error],
    );
  } else {
    const status = outcome.status === 'unknown' ? 'unknown' : 'failed';
    const error =
      outcome.status === 'retry' ? `gave up after ${message.attempts} attempts: ${outcome.error}` : outcome.error;
    await db.query(`UPDATE assistant.outbox SET status = $2, last_error = $3 WHERE id = $1`, [
      message.id,
      status,
      error,
    ]);
    await recordFailure(
      db,
      {
        source: 'delivery',
        userId: message.userId,
        workflow: `${message.kind} message ${message.id} (${message.channel})`,
        message:
          status === 'unknown'
            ? `may not have arrived, and is not repeated: ${error}`
            : `could not be delivered: ${error}`,
        retried: `${message.attempts} attempt${message.attempts === 1 ? '' : 's'}`,
        data: { outbox_id: message.id },
      },
      options.now,
    );
  }
  return getOutboxMessage(db, message.id);
}

/** A webhook user's messages after `after` (an outbox id), oldest first, whatever their delivery status. */
export async function listOutbox(
  db: Queryable,
  userIdInput: unknown,
  options: { after?: unknown; limit?: unknown } = {},
): Promise<OutboxMessage[]> {
  const userId = requireUserId(userIdInput);
  const after = options.after === undefined || options.after === '' || options.after === null ? 0 : options.after;
  const afterId = typeof after === 'string' && /^\d{1,18}$/.test(after.trim()) ? Number(after) : after;
  if (typeof afterId !== 'number' || !Number.isSafeInteger(afterId) || afterId < 0) {
    throw new AssistantInputError('after', 'must be an outbox message id (a whole number of 0 or more)');
  }
  const limitRaw = options.limit === undefined || options.limit === '' ? 100 : options.limit;
  const limit = typeof limitRaw === 'string' && /^\d{1,4}$/.test(limitRaw) ? Number(limitRaw) : limitRaw;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new AssistantInputError('limit', 'must be a whole number from 1 to 500');
  }
  const result = await db.query(`${SELECT} WHERE o.user_id = $1 AND o.id > $2 ORDER BY o.id LIMIT $3`, [
    userId,
    afterId,
    limit,
  ]);
  return result.rows.map(toMessage);
}

/** Stores (or, with null, removes) where a webhook user's proactive messages are POSTed. Check the URL first. */
export async function setCallbackUrl(db: Queryable, userIdInput: unknown, url: string | null): Promise<void> {
  const userId = requireUserId(userIdInput);
  if (url !== null && (typeof url !== 'string' || url.length > 2000)) {
    throw new AssistantInputError('callback_url', 'must be an http(s) URL of at most 2000 characters');
  }
  await db.query(
    `INSERT INTO assistant.user_settings (user_id, callback_url) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET callback_url = EXCLUDED.callback_url, updated_at = now()`,
    [userId, url],
  );
}
