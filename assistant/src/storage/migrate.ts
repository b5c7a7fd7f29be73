// The migration runner: a version table, one transaction per migration, and a session advisory lock so that
// several processes (install script, n8n workers) can run it at the same time safely.
import { Pool, type PoolConfig } from 'pg';
import { migrations as allMigrations, SCHEMA, type Migration } from './migrations';

/** Arbitrary constant: the advisory lock that serialises migration runs on one database. */
const MIGRATION_LOCK_KEY = 727_311_905;

export interface MigrationResult {
  applied: number[];
  current: number;
}

export type PgTarget = Pool | PoolConfig | string;

export async function runMigrations(
  target: PgTarget,
  migrations: Migration[] = allMigrations,
): Promise<MigrationResult> {
  const ownPool = !(target instanceof Pool);
  const pool =
    target instanceof Pool
      ? target
      : new Pool(typeof target === 'string' ? { connectionString: target, max: 1 } : { ...target, max: 1 });
  // An idle connection dropped by the server must not crash the process.
  if (ownPool) pool.on('error', () => undefined);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_migrations (
           version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.schema_migrations`);
      const doneVersions = new Set(done.rows.map((row) => row.version));
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (doneVersions.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query(`INSERT INTO ${SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)`, [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(
            `assistant migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
          );
        }
        applied.push(migration.version);
        doneVersions.add(migration.version);
      }
      return { applied, current: Math.max(0, ...doneVersions) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
    if (ownPool) await pool.end();
  }
}

const ensured = new WeakMap<Pool, Promise<MigrationResult>>();

/** Runs the migrations once per pool (the nodes call this before their first query). */
export function ensureSchema(pool: Pool): Promise<MigrationResult> {
  let pending = ensured.get(pool);
  if (!pending) {
    pending = runMigrations(pool);
    pending.catch(() => ensured.delete(pool));
    ensured.set(pool, pending);
  }
  return pending;
}
