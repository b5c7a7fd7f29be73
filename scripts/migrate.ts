// Runs the assistant's database migrations.
//   tsx scripts/migrate.ts [--url postgres://user:pass@host:port/db]
// Without --url: ASSISTANT_DATABASE_URL, then DATABASE_URL, then the standard PGHOST/PGPORT/PGUSER/PGPASSWORD/
// PGDATABASE variables. Idempotent and safe to run while n8n is running (an advisory lock serialises runs).
import type { PoolConfig } from 'pg';
import { runMigrations, type MigrationResult } from '../nodes/shared/assistant/migrate';

export { runMigrations };

export function targetFromArgs(argv: string[], env: NodeJS.ProcessEnv): string | PoolConfig {
  const flag = argv.indexOf('--url');
  if (flag !== -1) {
    const url = argv[flag + 1];
    if (!url || !/^postgres(ql)?:\/\//.test(url)) throw new Error('--url: expected a postgres:// connection URL');
    return url;
  }
  const url = env.ASSISTANT_DATABASE_URL || env.DATABASE_URL;
  if (url) return url;
  // pg reads PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE itself.
  return {};
}

export function describe(result: MigrationResult): string {
  return result.applied.length === 0
    ? `assistant schema is up to date (version ${result.current})`
    : `assistant schema migrated to version ${result.current} (applied ${result.applied.join(', ')})`;
}

if (require.main === module) {
  runMigrations(targetFromArgs(process.argv.slice(2), process.env))
    .then((result) => console.log(describe(result)))
    .catch((error: Error) => {
      // The message never contains the password: pg errors name host, database and user only.
      console.error(`migration failed: ${error.message}`);
      process.exit(1);
    });
}
