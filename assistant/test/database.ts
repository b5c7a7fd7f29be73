// A real Postgres 17 for the assistant tests: started once per test file, migrated, stopped after.
import { Pool } from 'pg';
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
