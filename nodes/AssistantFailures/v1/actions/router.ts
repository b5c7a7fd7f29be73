// Runs the chosen operation of Assistant Failures v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as listFailures from './listFailures.operation';
import * as recordFailure from './recordFailure.operation';

export const operations: Record<string, ItemOperation> = { listFailures, recordFailure };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
