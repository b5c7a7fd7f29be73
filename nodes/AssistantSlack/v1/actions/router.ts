// Runs the chosen operation of Assistant Slack v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as checkSender from './checkSender.operation';
import * as followTurn from './followTurn.operation';
import * as sendMessage from './sendMessage.operation';

export const operations: Record<string, ItemOperation> = { checkSender, followTurn, sendMessage };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
