// One-time pairing codes: the owner issues one for a new person, anyone paired issues one for themselves (to pair
// another channel). A code is short-lived, single use, stored only as its SHA-256, and the wrong codes a sender (and
// everyone together) may send are limited. A stranger who sends a good one becomes that person on that channel.
import { createHash, randomInt } from 'node:crypto';
import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { optionalInt, requireUserId } from '../validate';
import { isOperator } from '../pending/approvals';
import { requirePersonName } from './people';

/** No 0/O, 1/I/L: a code read aloud or copied by hand is typed right. 31 symbols, 8 of them: ~40 bits. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
export const DEFAULT_PAIRING_CODE_MINUTES = 15;
export const MAX_PAIRING_CODE_MINUTES = 24 * 60;
/** Wrong codes one sender may send in PAIRING_ATTEMPT_WINDOW_MS before their codes are not even looked at. */
export const MAX_ATTEMPTS_PER_SENDER = 5;
/** Wrong codes everyone together may send in the window (many throwaway accounts): then pairing pauses. */
export const MAX_ATTEMPTS_OVERALL = 50;
export const PAIRING_ATTEMPT_WINDOW_MS = 60 * 60 * 1000;

export interface IssuedCode {
  /** Shown once, to the one who asked; only its hash is stored. */
  code: string;
  expiresAt: string;
  /** Who redeeming it becomes: a new person of this name, or the issuer on another channel. */
  for: { newPerson: string } | { userId: string };
}

/** The code as a person types it, reduced to its symbols ("abcd-efgh " → "ABCDEFGH"), or null when it is not one. */
export function normalisePairingCode(text: unknown): string | null {
  if (typeof text !== 'string' || text.length > 40) return null;
  const symbols = text.toUpperCase().replace(/[\s-]/g, '');
  return symbols.length === CODE_LENGTH && [...symbols].every((c) => ALPHABET.includes(c)) ? symbols : null;
}

export const hashPairingCode = (normalised: string): string => createHash('sha256').update(normalised).digest('hex');

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/**
 * Issues a code. The owner: for a new person (`personName`), or for themselves (`forSelf`); anyone else paired: only
 * for themselves. The code is returned once; it expires after `minutes` (default 15).
 */
export async function issuePairingCode(
  db: Queryable,
  input: { callerUserId: unknown; personName?: unknown; forSelf?: unknown; minutes?: unknown; now: Date },
): Promise<IssuedCode> {
  const caller = requireUserId(input.callerUserId, 'callerUserId');
  if (input.forSelf !== undefined && typeof input.forSelf !== 'boolean')
    throw new AssistantInputError('forSelf', 'must be true or false');
  const minutes = optionalInt(input.minutes, 'minutes', 1, MAX_PAIRING_CODE_MINUTES) ?? DEFAULT_PAIRING_CODE_MINUTES;
  const forSelf = input.forSelf === true;
  const isOwner = await isOperator(db, caller);
  if (!forSelf && !isOwner) {
    throw new AssistantInputError(
      'forSelf',
      'only the owner may let a new person in; you may pair another channel of yours',
    );
  }
  if (forSelf && !isOwner) {
    const active = await db.query('SELECT 1 FROM assistant.people WHERE user_id = $1 AND removed_at IS NULL', [caller]);
    if (active.rowCount === 0) throw new AssistantInputError('callerUserId', 'is neither the owner nor a person');
  }
  const personName = forSelf ? null : requirePersonName(input.personName, 'personName');
  const code = newCode();
  const expiresAt = new Date(input.now.getTime() + minutes * 60_000);
  await db.query(
    `INSERT INTO assistant.pairing_codes (code_hash, issued_by, for_user_id, person_name, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [hashPairingCode(code), caller, forSelf ? caller : null, personName, input.now, expiresAt],
  );
  return {
    code: `${code.slice(0, 4)}-${code.slice(4)}`,
    expiresAt: expiresAt.toISOString(),
    for: personName === null ? { userId: caller } : { newPerson: personName },
  };
}

export type Redemption =
  { kind: 'paired'; userId: string; newPerson: boolean; name: string | null } | { kind: 'wrong' } | { kind: 'limited' };

/**
 * Redeems `normalised` for `identity` (a stranger's "<channel>:<id>"). `ownerCodesOnly`: only a code the owner issued
 * for themselves counts (a channel whose policy lets nobody else in). A miss counts against the sender.
 */
export async function redeemPairingCode(
  pool: Pool,
  input: { identity: string; normalised: string; ownerCodesOnly: boolean; now: Date },
): Promise<Redemption> {
  const { identity, now } = input;
  const since = new Date(now.getTime() - PAIRING_ATTEMPT_WINDOW_MS);
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('assistant.pairing'))");
    const attempts = await client.query<{ mine: string; all: string }>(
      `SELECT count(*) FILTER (WHERE identity = $1) AS mine, count(*) AS all
         FROM assistant.pairing_attempts WHERE attempted_at > $2`,
      [identity, since],
    );
    const { mine, all } = attempts.rows[0];
    if (Number(mine) >= MAX_ATTEMPTS_PER_SENDER || Number(all) >= MAX_ATTEMPTS_OVERALL) return { kind: 'limited' };
    const found = await client.query<{ id: string; for_user_id: string | null; person_name: string | null }>(
      `SELECT id, for_user_id, person_name FROM assistant.pairing_codes
        WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 FOR UPDATE`,
      [hashPairingCode(input.normalised), now],
    );
    const code = found.rows[0];
    if (
      !code ||
      (input.ownerCodesOnly && (code.for_user_id === null || !(await isOperator(client, code.for_user_id))))
    ) {
      await client.query('DELETE FROM assistant.pairing_attempts WHERE attempted_at < $1', [since]);
      await client.query('INSERT INTO assistant.pairing_attempts (identity, attempted_at) VALUES ($1, $2)', [
        identity,
        now,
      ]);
      return { kind: 'wrong' };
    }
    // An identity that already has a user (it talked while its channel was open) keeps that user's data.
    const existing = await client.query<{ user_id: string }>(
      'SELECT user_id FROM assistant.identities WHERE identity = $1',
      [identity],
    );
    let userId = code.for_user_id ?? existing.rows[0]?.user_id ?? null;
    if (userId === null)
      userId = (await client.query<{ id: string }>('INSERT INTO assistant.users DEFAULT VALUES RETURNING id')).rows[0]
        .id;
    if (code.for_user_id === null) {
      await client.query(
        `INSERT INTO assistant.people (user_id, name, added_at, added_by) VALUES ($1, $2, $3, 'pairing')
         ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name, added_at = EXCLUDED.added_at, removed_at = NULL`,
        [userId, code.person_name, now],
      );
    }
    await client.query(
      `INSERT INTO assistant.identities (identity, user_id) VALUES ($1, $2)
       ON CONFLICT (identity) DO UPDATE SET user_id = EXCLUDED.user_id`,
      [identity, userId],
    );
    await client.query('UPDATE assistant.pairing_codes SET used_at = $2, used_by = $3 WHERE id = $1', [
      code.id,
      now,
      identity,
    ]);
    return { kind: 'paired', userId, newPerson: code.for_user_id === null, name: code.person_name };
  });
}
