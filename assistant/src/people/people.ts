// The people on one install: the owner (the user behind the owner's Telegram chat) and everyone the owner let in,
// each their own user with their own memories, tasks, budgets and site logins. Only the owner lists and removes them;
// that is checked here, from the caller's user id, never left to the model.
import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { isOperator, operatorUserId } from '../pending/approvals';
import { requireUserId } from '../validate';

export interface Person {
  userId: string;
  name: string;
  addedAt: string;
  addedBy: 'pairing' | 'allowlist';
  /** The channel identities they talk from ("telegram:42", "email:ana@example.org"). */
  identities: string[];
}

/** The owner's user (the operator's: their Telegram chat's, else the API identity "owner"); none yet: null. */
export async function ownerUserId(db: Queryable): Promise<string | null> {
  return (await operatorUserId(db)) ?? null;
}

/** Refuses anyone but the owner: the owner-only actions (issuing codes for new people, listing, removing) call it. */
export async function requireOwner(db: Queryable, callerInput: unknown, field = 'userId'): Promise<string> {
  const caller = requireUserId(callerInput, field);
  if (!(await isOperator(db, caller))) throw new AssistantInputError(field, 'only the owner may do this');
  return caller;
}

export function requirePersonName(value: unknown, field = 'name'): string {
  const name = typeof value === 'string' ? value.trim().replace(/\s+/g, ' ') : value;
  if (typeof name !== 'string' || name === '' || name.length > 100 || /\p{Cc}/u.test(name)) {
    throw new AssistantInputError(field, 'must be a name of 1 to 100 characters');
  }
  return name;
}

/** The people the owner let in and has not removed, with the identities they talk from. Owner only. */
export async function listPeople(db: Queryable, callerInput: unknown): Promise<Person[]> {
  await requireOwner(db, callerInput);
  const rows = await db.query<{
    user_id: string;
    name: string;
    added_at: Date;
    added_by: Person['addedBy'];
    identities: string[];
  }>(
    `SELECT p.user_id, p.name, p.added_at, p.added_by,
            coalesce(array_agg(i.identity ORDER BY i.identity) FILTER (WHERE i.identity IS NOT NULL), '{}') AS identities
       FROM assistant.people p LEFT JOIN assistant.identities i ON i.user_id = p.user_id
      WHERE p.removed_at IS NULL GROUP BY p.user_id ORDER BY p.added_at, p.name`,
  );
  return rows.rows.map((row) => ({
    userId: row.user_id,
    name: row.name,
    addedAt: row.added_at.toISOString(),
    addedBy: row.added_by,
    identities: row.identities,
  }));
}

/** An active person named `person` (their user id, or their name when it is unique). */
async function findPerson(db: Queryable, person: unknown): Promise<{ userId: string; name: string }> {
  if (typeof person !== 'string' || person.trim() === '')
    throw new AssistantInputError('person', "must be a person's name or user id");
  const rows = await db.query<{ user_id: string; name: string }>(
    `SELECT user_id, name FROM assistant.people
      WHERE removed_at IS NULL AND (user_id::text = lower($1) OR lower(name) = lower($1))`,
    [person.trim()],
  );
  if (rows.rows.length === 0) throw new AssistantNotFoundError('person', `no person "${person.trim()}"`);
  if (rows.rows.length > 1)
    throw new AssistantInputError('person', `${rows.rows.length} people are named so; give their user id`);
  return { userId: rows.rows[0].user_id, name: rows.rows[0].name };
}

export interface RemovedPerson {
  userId: string;
  name: string;
  /** true: the user and everything of theirs were deleted; false: their data is kept, only their access is gone. */
  purged: boolean;
  identitiesRemoved: string[];
}

/**
 * Removes a person: they no longer reach the assistant (their identities are gone, they leave every allow list).
 * `purge: true` also deletes their user and everything of theirs (the tool asks the owner's approval first).
 */
export async function removePerson(
  pool: Pool,
  input: { callerUserId: unknown; person: unknown; purge?: unknown; now: Date },
): Promise<RemovedPerson> {
  if (input.purge !== undefined && typeof input.purge !== 'boolean')
    throw new AssistantInputError('purge', 'must be true or false');
  const owner = await requireOwner(pool, input.callerUserId, 'callerUserId');
  return withTransaction(pool, async (client) => {
    const person = await findPerson(client, input.person);
    if (person.userId === owner) throw new AssistantInputError('person', 'the owner cannot be removed');
    const gone = await client.query<{ identity: string }>(
      'DELETE FROM assistant.identities WHERE user_id = $1 RETURNING identity',
      [person.userId],
    );
    const identitiesRemoved = gone.rows.map((row) => row.identity).sort();
    for (const identity of identitiesRemoved) {
      const channel = identity.slice(0, identity.indexOf(':'));
      const externalId = identity.slice(identity.indexOf(':') + 1);
      await client.query(
        `UPDATE assistant.instance_settings
            SET dm_policies = jsonb_set(dm_policies, ARRAY[$1::text, 'allow'],
                                        (dm_policies #> ARRAY[$1::text, 'allow']) - $2::text)
          WHERE dm_policies #> ARRAY[$1::text, 'allow'] ? $2::text`,
        [channel, externalId],
      );
    }
    await client.query('DELETE FROM assistant.pairing_codes WHERE for_user_id = $1 AND used_at IS NULL', [
      person.userId,
    ]);
    const purged = input.purge === true;
    if (purged) await client.query('DELETE FROM assistant.users WHERE id = $1', [person.userId]);
    else
      await client.query('UPDATE assistant.people SET removed_at = $2 WHERE user_id = $1', [person.userId, input.now]);
    return { userId: person.userId, name: person.name, purged, identitiesRemoved };
  });
}
