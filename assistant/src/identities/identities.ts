// Identities: who is talking. The channel (telegram/api) is fixed by the entry point; the caller only supplies
// the id inside it, so an API caller cannot name a Telegram identity ("api:telegram:1" is a different user).
import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { requireUserId } from '../validate';

export const CHANNELS = ['telegram', 'api', 'email', 'slack'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ResolvedIdentity {
  userId: string;
  identity: string;
  channel: Channel;
  created: boolean;
}

/** Builds the namespaced identity key; this is the only place identities are formed. */
export function identityKey(channel: unknown, externalId: unknown): string {
  if (!(CHANNELS as readonly unknown[]).includes(channel))
    throw new AssistantInputError('channel', `must be one of ${CHANNELS.map((name) => `"${name}"`).join(', ')}`);
  const id = typeof externalId === 'number' && Number.isSafeInteger(externalId) ? String(externalId) : externalId;
  if (typeof id !== 'string' || id.trim() === '')
    throw new AssistantInputError('externalId', 'must be a non-empty string');
  const trimmed = id.trim();
  if (trimmed.length > 200) throw new AssistantInputError('externalId', 'must be at most 200 characters');
  if (/[\u0000-\u001f\u007f]/.test(trimmed))
    throw new AssistantInputError('externalId', 'must not contain control characters');
  if (channel === 'telegram' && !/^-?\d{1,20}$/.test(trimmed)) {
    throw new AssistantInputError('externalId', 'a Telegram chat id must be an integer');
  }
  if (channel === 'email' && !/^[^\s@<>]+@[^\s@<>]+$/.test(trimmed)) {
    throw new AssistantInputError('externalId', 'an email identity must be an address like name@example.org');
  }
  if (channel === 'slack' && !/^[UW][A-Z0-9]{2,30}$/.test(trimmed)) {
    throw new AssistantInputError('externalId', 'a Slack identity must be a Slack user id like U012AB3CD');
  }
  // Addresses are compared without case (Ana@Example.org is ana@example.org).
  return `${channel}:${channel === 'email' ? trimmed.toLowerCase() : trimmed}`;
}

/** Finds the user behind an identity, creating both on first contact. Safe under concurrency. */
export async function resolveIdentity(pool: Pool, channel: unknown, externalId: unknown): Promise<ResolvedIdentity> {
  const identity = identityKey(channel, externalId);
  const existing = await pool.query<{ user_id: string }>(
    'SELECT user_id FROM assistant.identities WHERE identity = $1',
    [identity],
  );
  if (existing.rows[0])
    return { userId: existing.rows[0].user_id, identity, channel: channel as Channel, created: false };
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [identity]);
    const again = await client.query<{ user_id: string }>(
      'SELECT user_id FROM assistant.identities WHERE identity = $1',
      [identity],
    );
    if (again.rows[0]) return { userId: again.rows[0].user_id, identity, channel: channel as Channel, created: false };
    const user = await client.query<{ id: string }>('INSERT INTO assistant.users DEFAULT VALUES RETURNING id');
    const userId = user.rows[0].id;
    await client.query('INSERT INTO assistant.identities (identity, user_id) VALUES ($1, $2)', [identity, userId]);
    return { userId, identity, channel: channel as Channel, created: true };
  });
}

/**
 * Links another identity to an existing user (e.g. the owner's API id to their Telegram user). Refuses to move an
 * identity that already belongs to someone else.
 */
export async function linkIdentity(
  db: Queryable,
  userIdInput: unknown,
  channel: unknown,
  externalId: unknown,
): Promise<{ userId: string; identity: string }> {
  const userId = requireUserId(userIdInput);
  const identity = identityKey(channel, externalId);
  const user = await db.query('SELECT 1 FROM assistant.users WHERE id = $1', [userId]);
  if (user.rowCount === 0) throw new AssistantInputError('userId', 'no such user');
  const inserted = await db.query<{ user_id: string }>(
    `INSERT INTO assistant.identities (identity, user_id) VALUES ($1, $2)
     ON CONFLICT (identity) DO UPDATE SET identity = EXCLUDED.identity RETURNING user_id`,
    [identity, userId],
  );
  if (inserted.rows[0].user_id !== userId) {
    throw new AssistantInputError('externalId', `${identity} already belongs to another user`);
  }
  return { userId, identity };
}

export async function listIdentities(db: Queryable, userIdInput: unknown): Promise<string[]> {
  const userId = requireUserId(userIdInput);
  const rows = await db.query<{ identity: string }>(
    'SELECT identity FROM assistant.identities WHERE user_id = $1 ORDER BY identity',
    [userId],
  );
  return rows.rows.map((row) => row.identity);
}

/** The user behind an identity, or null when nobody has used it yet (nothing is created). */
export async function findIdentityUser(db: Queryable, channel: unknown, externalId: unknown): Promise<string | null> {
  const key = identityKey(channel, externalId);
  const found = await db.query('SELECT user_id FROM assistant.identities WHERE identity = $1', [key]);
  return (found.rows[0]?.user_id as string | undefined) ?? null;
}
