// The assistant's Postgres, reached through n8n's built-in `postgres` credential (host, port, database, user,
// password, ssl): one shared pool per connection setting, the schema made sure of once per pool.
import { NodeOperationError, type IExecuteFunctions, type INodeCredentialDescription } from 'n8n-workflow';
import type { Pool } from 'pg';
import { ensureSchema, poolConfigFromCredential, sharedPool, type PostgresCredential } from 'assistant-core';

/** n8n's own Postgres credential type. */
export const POSTGRES_CREDENTIAL = 'postgres';

export const postgresCredentials: INodeCredentialDescription[] = [{ name: POSTGRES_CREDENTIAL, required: true }];

/** The pool for the node's Postgres credential (as resolved for `itemIndex`), without touching the schema. */
export async function postgresPool(context: IExecuteFunctions, itemIndex?: number): Promise<Pool> {
  const credential = await context.getCredentials<PostgresCredential>(POSTGRES_CREDENTIAL, itemIndex);
  return sharedPool(poolConfigFromCredential(credential));
}

/** The pool with the assistant schema in place: what the storage nodes work on. */
export async function assistantDatabase(context: IExecuteFunctions): Promise<Pool> {
  const pool = await postgresPool(context);
  try {
    await ensureSchema(pool);
  } catch (error) {
    const message = `Could not prepare the assistant schema: ${(error as Error).message}`;
    throw new NodeOperationError(context.getNode(), message);
  }
  return pool;
}
