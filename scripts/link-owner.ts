// Links the owner's Telegram chat and the API user_id they use over POST /webhook/agent as one assistant user, so
// both channels share memories, the knowledge graph and tasks (existing data of both is merged).
//   tsx scripts/link-owner.ts --user-id <api user_id> [--chat-id <telegram chat id>] [--url postgres://…]
// Without --chat-id: the owner chat id stored in the assistant's settings. The database as for scripts/migrate.ts.
import { Pool } from 'pg';
import { linkOwnerIdentities, runMigrations, type LinkResult } from 'assistant-core';
import { targetFromArgs } from './migrate';

export interface LinkOwnerArgs {
  userId: string;
  chatId?: string;
}

export function linkOwnerArgs(argv: string[]): LinkOwnerArgs {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    if (at === -1) return undefined;
    const next = argv[at + 1];
    if (next === undefined || next.startsWith('--')) throw new Error(`${flag}: needs a value`);
    return next;
  };
  const userId = value('--user-id');
  if (!userId) throw new Error("--user-id: the API user_id to link with the owner's Telegram chat is required");
  return { userId, chatId: value('--chat-id') };
}

export function describeLink(result: LinkResult): string {
  const merged = result.merged ? `; the data of ${result.merged} was merged in` : '';
  return `linked ${result.identities.join(' and ')} as one user (${result.userId})${merged}`;
}

if (require.main === module) {
  (async () => {
    const argv = process.argv.slice(2);
    const args = linkOwnerArgs(argv);
    const target = targetFromArgs(argv, process.env);
    const pool = new Pool(typeof target === 'string' ? { connectionString: target, max: 2 } : { ...target, max: 2 });
    pool.on('error', () => undefined);
    try {
      await runMigrations(pool);
      console.log(
        describeLink(await linkOwnerIdentities(pool, { apiUserId: args.userId, telegramChatId: args.chatId })),
      );
    } finally {
      await pool.end();
    }
  })().catch((error: Error) => {
    console.error(`link-owner: ${error.message}`);
    process.exit(1);
  });
}
