// The router of every storage node (Context, Memory, Knowledge Graph, Tasks, Turns): the chosen operation for each
// item on the assistant's database; an unknown operation is refused before the database is touched, and a database
// that cannot be reached fails every item (so an error output gets them all).
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Pool } from 'pg';

import { assistantDatabase } from '../transport/postgres';
import { failAllItems } from './errors';
import type { ItemOperation } from './operations';
import { runItems } from './runItems';

export async function routeStorageOperation(
  context: IExecuteFunctions,
  operations: Record<string, ItemOperation>,
): Promise<INodeExecutionData[][]> {
  const operation = context.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(context.getNode(), `Operation "${operation}" is not supported`);
  }
  let pool: Pool;
  try {
    pool = await assistantDatabase(context);
  } catch (error) {
    return failAllItems(context, error);
  }
  return await runItems(context, (itemIndex) => operations[operation].execute.call(context, pool, itemIndex));
}
