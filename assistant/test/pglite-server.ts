// PGlite (Postgres 17 in WebAssembly, npm @electric-sql/pglite) for the assistant tests, with its `vector`
// (pgvector) and pg_trgm extensions, served on a loopback port by @electric-sql/pglite-socket so that the product's
// own `pg` pool speaks the real wire protocol to it: the migrations and queries run unchanged. One backend: the
// pool has one connection (the socket server queues queries, not transactions). No vitest here: the benchmarks
// start it too (scripts/bench-recall-meaning.ts); usePgliteDatabase (pglite-database.ts) is the tests' hook.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the subpath types (see that file)
/// <reference path="./pglite-modules.d.ts" />
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Pool } from 'pg';
import { runMigrations } from '../src/storage/migrate';

export interface PgliteDatabase {
  pool: Pool;
  url: string;
  stop(): Promise<void>;
}

/** A migrated PGlite with `vector` available (not yet enabled: enableVectorIndex does that, as at install). */
export async function startPgliteDatabase(): Promise<PgliteDatabase> {
  const db = await PGlite.create({ extensions: { vector, pg_trgm } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  let pool: Pool | undefined;
  const stop = async () => {
    await pool?.end();
    await server.stop();
    await db.close();
  };
  try {
    await server.start();
    const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    pool = new Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    await runMigrations(pool);
    return { pool, url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
