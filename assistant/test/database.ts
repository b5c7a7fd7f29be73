// A real Postgres 17 for the assistant tests: started once per test file, migrated, stopped after.
import { Pool } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from '../../scripts/runtime/postgres';
import { runMigrations } from '../src/storage/migrate';

export interface TestDatabase {
  server: PostgresServer;
  pool: Pool;
  stop(): Promise<void>;
}

export async function startAssistantDatabase(): Promise<TestDatabase> {
  const server = await startPostgres({ database: 'assistant_test' });
  try {
    await runMigrations(server.url);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const pool = new Pool({ connectionString: server.url, max: 5 });
  // Connections closing while the server shuts down must not surface as unhandled errors.
  pool.on('error', () => undefined);
  return {
    server,
    pool,
    async stop() {
      await pool.end();
      await server.stop();
    },
  };
}

/**
 * Starts a migrated database before the file's tests (ahead of the file's own `beforeAll`) and stops it after them.
 * Its `pool` and `server` may be read from inside tests and hooks.
 */
export function useAssistantDatabase(): Pick<TestDatabase, 'pool' | 'server'> {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await startAssistantDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  const started = (): TestDatabase => {
    if (!db) throw new Error('The test database is not started yet: read it inside a test or hook.');
    return db;
  };
  return {
    get pool() {
      return started().pool;
    },
    get server() {
      return started().server;
    },
  };
}
