// The one migration runner for this repository's Postgres schemas (the judge's key store, the assistant's
// tables): numbered migrations, each applied once in its own transaction and recorded in `<schema>.schema_migrations`,
// under a session advisory lock so that several processes may start at the same time.
import type { ClientBase } from 'pg';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** One schema's migrations and how they are run. */
export interface MigrationPlan {
  /** The schema created if missing; its `schema_migrations` table records what was applied. */
  schema: string;
  /** Arbitrary constant, one per schema: the advisory lock that serialises its migration runs. */
  lockKey: number;
  /** Names the schema in a failed migration's error, e.g. "assistant" or "key store". */
  label: string;
  migrations: readonly Migration[];
}

export interface MigrationResult {
  /** Versions applied by this run, in order. */
  applied: number[];
  /** The highest version applied so far (0 for none). */
  current: number;
}

/** Creates the schema and applies its missing migrations in version order; safe to run from several processes. */
export async function applyMigrations(client: ClientBase, plan: MigrationPlan): Promise<MigrationResult> {
  await client.query('SELECT pg_advisory_lock($1)', [plan.lockKey]);
  try {
    const doneVersions = await prepareVersionTable(client, plan.schema);
    const applied: number[] = [];
    for (const migration of [...plan.migrations].sort((a, b) => a.version - b.version)) {
      if (doneVersions.has(migration.version)) continue;
      await applyOne(client, plan, migration);
      applied.push(migration.version);
      doneVersions.add(migration.version);
    }
    return { applied, current: Math.max(0, ...doneVersions) };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [plan.lockKey]);
  }
}

/** Creates the schema and its version table if missing; answers the versions already applied. */
async function prepareVersionTable(client: ClientBase, schema: string): Promise<Set<number>> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
       version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const done = await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations`);
  return new Set(done.rows.map((row) => row.version));
}

async function applyOne(client: ClientBase, plan: MigrationPlan, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query(`INSERT INTO ${plan.schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
      migration.version,
      migration.name,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(
      `${plan.label} migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
    );
  }
}
