// A real Postgres 17 for the storage nodes' tests, reached the way n8n reaches it: through a `postgres` credential.
// Fresh (the nodes create the schema themselves on first use) or migrated (for tests that seed data directly).
import { Pool } from 'pg';
import { closeSharedPools, type PostgresCredential } from 'assistant-core';

import { startAssistantDatabase } from '../../../assistant/test/database';
import { startPostgres, type PostgresServer } from '../../../scripts/runtime/postgres';

export interface NodeDatabase {
  server: PostgresServer;
  /** n8n's postgres credential for this server. */
  credential: PostgresCredential;
  /** A pool of its own, to seed or check data directly. */
  pool: Pool;
  /** Closes the nodes' shared pools and this pool, then stops the server. */
  stop(): Promise<void>;
}

export const postgresCredential = (server: PostgresServer): PostgresCredential => ({
  host: server.host,
  port: server.port,
  database: server.database,
  user: server.user,
  password: server.password,
  ssl: 'disable',
});

export async function startNodeDatabase(options: { migrated?: boolean } = {}): Promise<NodeDatabase> {
  if (options.migrated) {
    const db = await startAssistantDatabase();
    return {
      server: db.server,
      pool: db.pool,
      credential: postgresCredential(db.server),
      async stop() {
        await closeSharedPools();
        await db.stop();
      },
    };
  }
  const server = await startPostgres({ database: 'assistant_nodes', password: 'node-test-secret' });
  const pool = new Pool({ connectionString: server.url, max: 2 });
  pool.on('error', () => undefined);
  return {
    server,
    pool,
    credential: postgresCredential(server),
    async stop() {
      await closeSharedPools();
      await pool.end();
      await server.stop();
    },
  };
}
