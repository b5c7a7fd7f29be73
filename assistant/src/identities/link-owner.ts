// One operator, one user: the owner's Telegram chat and the API user_id they use over /webhook/agent are linked as
// one assistant user. When both already have data, it is merged into the Telegram user: memories, graph (entities
// of the same name become one), tasks, turns and questions; the user's own settings win over the absorbed ones.
import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../storage/db';
import { USER_ACCOUNTING_TABLES, USER_DATA_TABLES } from '../storage/user-tables';

/** The user_settings columns a merge keeps (the surviving user's value wins). */
const MERGED_SETTINGS = [
  'assistant_name',
  'language',
  'style',
  'time_zone',
  'quiet_start',
  'quiet_end',
  'briefing_time',
  'briefing_last_on',
  'callback_url',
];
import { AssistantInputError } from '../errors';
import { getInstanceSettings } from '../settings/settings';
import { identityKey } from './identities';

export interface LinkResult {
  userId: string;
  identities: string[];
  /** The user whose data was merged in, when both identities had one. */
  merged?: string;
}

async function userOf(client: PoolClient, identity: string): Promise<string | undefined> {
  const found = await client.query<{ user_id: string }>(
    'SELECT user_id FROM assistant.identities WHERE identity = $1 FOR UPDATE',
    [identity],
  );
  return found.rows[0]?.user_id;
}

/** Moves every row of `from` to `into`, in one transaction. */
async function mergeUsers(client: PoolClient, into: string, from: string): Promise<void> {
  // Entities named alike become one: relations of the absorbed one are re-pointed, in the same statement as the
  // move, so the (user_id, entity id) foreign keys hold at its end.
  await client.query(
    `WITH twin AS (
       SELECT f.id AS from_id, i.id AS into_id
         FROM assistant.entities f JOIN assistant.entities i
           ON i.user_id = $1 AND i.normalized_name = f.normalized_name
        WHERE f.user_id = $2),
     moved AS (
       UPDATE assistant.entities SET user_id = $1
        WHERE user_id = $2 AND id NOT IN (SELECT from_id FROM twin) RETURNING id)
     UPDATE assistant.relations r
        SET user_id = $1,
            from_entity_id = coalesce((SELECT into_id FROM twin WHERE from_id = r.from_entity_id), r.from_entity_id),
            to_entity_id = coalesce((SELECT into_id FROM twin WHERE from_id = r.to_entity_id), r.to_entity_id)
      WHERE r.user_id = $2`,
    [into, from],
  );
  await client.query('DELETE FROM assistant.entities WHERE user_id = $1', [from]);
  await client.query(
    `INSERT INTO assistant.user_settings (user_id, ${MERGED_SETTINGS.join(', ')})
     SELECT $1, ${MERGED_SETTINGS.join(', ')} FROM assistant.user_settings WHERE user_id = $2
     ON CONFLICT (user_id) DO UPDATE SET
       ${MERGED_SETTINGS.map((column) => `${column} = coalesce(user_settings.${column}, EXCLUDED.${column})`).join(', ')}`,
    [into, from],
  );
  // A session both users have keeps the cursor further back: capture may read some turns again (the write gate drops
  // what it already has), and skips none.
  await client.query(
    `UPDATE assistant.capture_cursors t SET last_turn_id = least(t.last_turn_id, f.last_turn_id)
       FROM assistant.capture_cursors f WHERE t.user_id = $1 AND f.user_id = $2 AND f.session_id = t.session_id`,
    [into, from],
  );
  await client.query(
    `DELETE FROM assistant.capture_cursors f WHERE f.user_id = $2
        AND EXISTS (SELECT 1 FROM assistant.capture_cursors t WHERE t.user_id = $1 AND t.session_id = f.session_id)`,
    [into, from],
  );
  for (const table of USER_DATA_TABLES) {
    if (table === 'entities' || table === 'relations' || table === 'user_settings') continue;
    // Table names come from the constant list, never from input. Tasks move in one statement, parents included.
    await client.query(`UPDATE assistant.${table} SET user_id = $1 WHERE user_id = $2`, [into, from]);
  }
  await client.query(
    `DELETE FROM assistant.budget_caps f WHERE f.user_id = $2
        AND EXISTS (SELECT 1 FROM assistant.budget_caps t WHERE t.user_id = $1 AND t.period = f.period)`,
    [into, from],
  );
  for (const table of USER_ACCOUNTING_TABLES)
    await client.query(`UPDATE assistant.${table} SET user_id = $1 WHERE user_id = $2`, [into, from]);
  await client.query('UPDATE assistant.identities SET user_id = $1 WHERE user_id = $2', [into, from]);
  await client.query('DELETE FROM assistant.users WHERE id = $1', [from]);
}

/**
 * Links the owner's Telegram chat (by default the stored owner chat id) and the API user_id as one user. Idempotent.
 */
export async function linkOwnerIdentities(
  pool: Pool,
  input: { apiUserId: unknown; telegramChatId?: unknown },
): Promise<LinkResult> {
  const chatId = input.telegramChatId ?? (await getInstanceSettings(pool)).ownerTelegramChatId;
  if (chatId === null || chatId === undefined || chatId === '') {
    throw new AssistantInputError(
      'telegramChatId',
      "no owner chat id is set: give one, or set the owner's Telegram chat id first",
    );
  }
  const telegram = identityKey('telegram', chatId);
  const api = identityKey('api', input.apiUserId);
  return withTransaction(pool, async (client) => {
    // One link at a time: two concurrent links of the same identities must not both create users.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('assistant.link-owner'))");
    let owner = await userOf(client, telegram);
    const apiUser = await userOf(client, api);
    if (!owner && apiUser) owner = apiUser;
    if (!owner)
      owner = (await client.query<{ id: string }>('INSERT INTO assistant.users DEFAULT VALUES RETURNING id')).rows[0]
        .id;
    let merged: string | undefined;
    if (apiUser && apiUser !== owner) {
      await mergeUsers(client, owner, apiUser);
      merged = apiUser;
    }
    for (const identity of [telegram, api]) {
      await client.query(
        `INSERT INTO assistant.identities (identity, user_id) VALUES ($1, $2)
         ON CONFLICT (identity) DO UPDATE SET user_id = EXCLUDED.user_id`,
        [identity, owner],
      );
    }
    const all = await client.query<{ identity: string }>(
      'SELECT identity FROM assistant.identities WHERE user_id = $1 ORDER BY identity',
      [owner],
    );
    return { userId: owner, identities: all.rows.map((row) => row.identity), ...(merged ? { merged } : {}) };
  });
}
