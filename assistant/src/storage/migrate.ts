// Runs the assistant's migrations with the shared runner (systemone-judge/migrations): a version table, one
// transaction per migration, and a session advisory lock so that several processes (install script, n8n workers)
// can run it at the same time safely.
import { Pool, type PoolConfig } from 'pg';
import { applyMigrations, type MigrationResult } from 'systemone-judge/migrations';
import { migrations as allMigrations, SCHEMA, type Migration } from './migrations';

export type { MigrationResult };

/** Arbitrary constant: the advisory lock that serialises migration runs on one database. */
const MIGRATION_LOCK_KEY = 727_311_905;

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
    return await applyMigrations(client, {
      schema: SCHEMA,
      lockKey: MIGRATION_LOCK_KEY,
      label: 'assistant',
      migrations,
    });
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
