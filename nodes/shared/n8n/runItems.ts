// The glue every assistant node shares: the Postgres connection from n8n's built-in `postgres` credential,
// the schema made sure of once per pool, one result per input item, errors naming the field and the item.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeProperties,
  type INodeTypeDescription,
} from 'n8n-workflow';
import type { Pool } from 'pg';
import { poolConfigFromCredential, sharedPool, type PostgresCredential } from 'assistant-core';
import { AssistantInputError, AssistantNotFoundError } from 'assistant-core';
import { ensureSchema } from 'assistant-core';

/** n8n's own Postgres credential type (host, port, database, user, password, ssl). */
export const POSTGRES_CREDENTIAL = 'postgres';

export const postgresCredentials: INodeTypeDescription['credentials'] = [{ name: POSTGRES_CREDENTIAL, required: true }];

/** The user every operation acts for: set by the workflow from the context step, never by the model. */
export const userIdProperty = (operations: string[]): INodeProperties => ({
  displayName: 'User ID',
  name: 'userId',
  type: 'string',
  required: true,
  default: '={{ $json.userId }}',
  description: 'The assistant user (UUID from Resolve Identity). Set it from the workflow, never from the model.',
  displayOptions: { show: { operation: operations } },
});

async function connect(context: IExecuteFunctions): Promise<Pool> {
  const credential = (await context.getCredentials(POSTGRES_CREDENTIAL)) as PostgresCredential;
  const pool = sharedPool(poolConfigFromCredential(credential));
  try {
    await ensureSchema(pool);
  } catch (error) {
    throw new NodeOperationError(context.getNode(), `Could not prepare the assistant schema: ${(error as Error).message}`);
  }
  return pool;
}

/** A string parameter read leniently: missing → undefined, so the domain decides what is required. */
export function parameter(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
  return context.getNodeParameter(name, itemIndex, undefined);
}

export type ItemHandler = (pool: Pool, itemIndex: number) => Promise<IDataObject>;

export async function runItems(context: IExecuteFunctions, handler: ItemHandler): Promise<INodeExecutionData[][]> {
  const items = context.getInputData();
  const pool = await connect(context);
  const out: INodeExecutionData[] = [];
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    try {
      out.push({ json: await handler(pool, itemIndex), pairedItem: { item: itemIndex } });
    } catch (error) {
      const known = error instanceof AssistantInputError || error instanceof AssistantNotFoundError;
      if (context.continueOnFail()) {
        const json: IDataObject = { error: (error as Error).message };
        if (known) json.field = error.field;
        out.push({ json, pairedItem: { item: itemIndex } });
        continue;
      }
      if (error instanceof NodeOperationError) throw error;
      throw new NodeOperationError(context.getNode(), (error as Error).message, {
        itemIndex,
        description: known ? `Check the "${error.field}" parameter.` : undefined,
      });
    }
  }
  return [out];
}

/** Domain objects are plain JSON already; this narrows the type for n8n. */
export const asData = (value: object): IDataObject => value as unknown as IDataObject;
