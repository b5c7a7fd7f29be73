// Runs the chosen operation of Assistant Tasks v1 for each item, on the assistant's database.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { runItems } from '../../../shared/helpers/runItems';
import { assistantDatabase } from '../../../shared/transport/postgres';
import * as complete from './complete.operation';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as list from './list.operation';
import * as update from './update.operation';

export const operations: Record<string, ItemOperation> = { complete, create, delete: del, get, list, update };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  const pool = await assistantDatabase(this);
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, pool, itemIndex));
}
