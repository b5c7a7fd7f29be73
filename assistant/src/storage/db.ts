// Connections: one pg pool per distinct connection setting, and a transaction helper.
import { createHash } from 'node:crypto';
import { Pool, type PoolClient, type PoolConfig, type QueryResultRow } from 'pg';

/** Anything that can run a parameterised query: a pool or a client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** The fields of n8n's built-in `postgres` credential that we use. */
export interface PostgresCredential {
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  ssl?: 'disable' | 'allow' | 'require' | 'verify' | 'verify-full' | string;
  allowUnauthorizedCerts?: boolean;
  maxConnections?: number;
  sshTunnel?: boolean;
}

export function poolConfigFromCredential(credential: PostgresCredential): PoolConfig {
  if (credential.sshTunnel) {
    throw new Error(
      'The Postgres credential uses an SSH tunnel, which the assistant nodes do not support; connect directly',
    );
  }
  const sslMode = credential.ssl ?? 'disable';
  const ssl =
    sslMode === 'disable' || sslMode === 'allow' ? false : { rejectUnauthorized: !credential.allowUnauthorizedCerts };
  return {
    host: credential.host ?? 'localhost',
    port: Number(credential.port ?? 5432),
    database: credential.database ?? 'postgres',
    user: credential.user ?? 'postgres',
    password: credential.password ?? '',
    ssl,
    max: Math.max(1, Math.min(Number(credential.maxConnections ?? 5), 20)),
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'n8n-assistant',
  };
}

const pools = new Map<string, Pool>();

/** A shared pool for these settings; the key is a hash, so no password is kept in a readable key. */
export function sharedPool(config: PoolConfig): Pool {
  const key = createHash('sha256').update(JSON.stringify(config)).digest('hex');
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(config);
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    pools.set(key, pool);
  }
  return pool;
}

export async function closeSharedPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.end()));
}

export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
