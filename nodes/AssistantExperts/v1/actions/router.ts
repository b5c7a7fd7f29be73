// Runs the chosen operation of Assistant Experts v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as expertSettings from './expertSettings.operation';
import * as setExpertModel from './setExpertModel.operation';

export const operations: Record<string, ItemOperation> = { expertSettings, setExpertModel };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
