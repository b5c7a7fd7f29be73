// Runs the chosen operation of Assistant Knowledge Graph v1 for each item, on the assistant's database.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Pool } from 'pg';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { failAllItems } from '../../../shared/helpers/errors';
import { runItems } from '../../../shared/helpers/runItems';
import { assistantDatabase } from '../../../shared/transport/postgres';
import * as endRelation from './endRelation.operation';
import * as query from './query.operation';
import * as relate from './relate.operation';
import * as upsertEntity from './upsertEntity.operation';

export const operations: Record<string, ItemOperation> = { endRelation, query, relate, upsertEntity };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  let pool: Pool;
  try {
    pool = await assistantDatabase(this);
  } catch (error) {
    return failAllItems(this, error);
  }
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, pool, itemIndex));
}
