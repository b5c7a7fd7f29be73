// Forgetting everything about a user: memories, the knowledge graph, tasks, turns, pending questions and settings.
// The user and their identities stay, so the next message starts afresh rather than as a stranger's; so does a turn
// still in flight (the one asking to forget), so that its reply can be stored.
import type { Pool } from 'pg';
import { withTransaction } from '../storage/db';
import { USER_DATA_TABLES } from '../storage/user-tables';
import { AssistantInputError } from '../errors';
import { requireUserId } from '../validate';

export type ForgetCounts = Record<(typeof USER_DATA_TABLES)[number], number>;

export async function forgetEverything(pool: Pool, userIdInput: unknown): Promise<ForgetCounts> {
  const userId = requireUserId(userIdInput);
  return withTransaction(pool, async (client) => {
    const user = await client.query('SELECT 1 FROM assistant.users WHERE id = $1 FOR UPDATE', [userId]);
    if (user.rowCount === 0) throw new AssistantInputError('userId', 'no such user');
    const counts = {} as ForgetCounts;
    // In list order: relations before the entities they point at.
    for (const table of USER_DATA_TABLES) {
      // Table names come from the constant list above, never from input.
      const inFlight = table === 'turns' ? " AND status <> 'pending'" : '';
      const deleted = await client.query(`DELETE FROM assistant.${table} WHERE user_id = $1${inFlight}`, [userId]);
      counts[table] = deleted.rowCount ?? 0;
    }
    return counts;
  });
}
