// Connection URLs of the superuser, and databases created on a running server.
import { Client } from 'pg';
import { SUPERUSER } from './postgres-folders';

export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function connectionUrl(o: { port: number; database: string; password?: string }): string {
  const auth = o.password === undefined ? SUPERUSER : `${SUPERUSER}:${encodeURIComponent(o.password)}`;
  return `postgres://${auth}@127.0.0.1:${o.port}/${o.database}`;
}

/** Creates a database if it does not exist. The name must be a plain lower-case identifier. */
export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  if (!IDENTIFIER.test(name)) throw new Error(`database: "${name}" must match ${IDENTIFIER}`);
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    // Identifiers cannot be bound as parameters; the name is validated above.
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}
