// Runs the assistant's database migrations.
//   tsx scripts/migrate.ts [--url postgres://user:pass@host:port/db]
// Without --url: ASSISTANT_DATABASE_URL, then DATABASE_URL, then the standard PGHOST/PGPORT/PGUSER/PGPASSWORD/
// PGDATABASE variables. Idempotent and safe to run while n8n is running (an advisory lock serialises runs).
// ASSISTANT_EMBEDDING_DIMENSIONS=<n> also sets up the pgvector index for memory embeddings of that dimension when
// the server has the `vector` extension (and says so when it has not: recall then re-ranks without it).
import { Pool, type PoolConfig } from 'pg';
import { runMigrations, type MigrationResult } from 'assistant-core';
import { enableVectorIndex } from 'assistant-core';

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

/** Sets up the pgvector index when ASSISTANT_EMBEDDING_DIMENSIONS is set; returns a line for the log. */
export async function setUpVectorIndex(
  target: string | PoolConfig,
  dimensions: string | undefined,
): Promise<string | undefined> {
  if (dimensions === undefined || dimensions === '') return undefined;
  const pool = new Pool(typeof target === 'string' ? { connectionString: target, max: 1 } : { ...target, max: 1 });
  pool.on('error', () => undefined);
  try {
    const result = await enableVectorIndex(pool, dimensions);
    return result.pgvector
      ? `memory embeddings: pgvector column and HNSW index for ${result.dimensions} dimensions`
      : `memory embeddings: no pgvector index (${result.reason})`;
  } catch (error) {
    throw new Error(`ASSISTANT_EMBEDDING_DIMENSIONS: ${(error as Error).message}`);
  } finally {
    await pool.end();
  }
}

if (require.main === module) {
  const target = targetFromArgs(process.argv.slice(2), process.env);
  runMigrations(target)
    .then(async (result) => {
      console.log(describe(result));
      const vectors = await setUpVectorIndex(target, process.env.ASSISTANT_EMBEDDING_DIMENSIONS);
      if (vectors) console.log(vectors);
    })
    .catch((error: Error) => {
      // The message never contains the password: pg errors name host, database and user only.
      console.error(`migration failed: ${error.message}`);
      process.exit(1);
    });
}
