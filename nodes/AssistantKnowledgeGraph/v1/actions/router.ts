// Runs the chosen operation of Assistant Knowledge Graph v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as endRelation from './endRelation.operation';
import * as query from './query.operation';
import * as relate from './relate.operation';
import * as upsertEntity from './upsertEntity.operation';

export const operations: Record<string, ItemOperation> = { endRelation, query, relate, upsertEntity };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
