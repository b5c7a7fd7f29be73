// Runs the chosen operation of Assistant Email v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as checkEmail from './checkEmail.operation';
import * as followTurn from './followTurn.operation';
import * as sendReply from './sendReply.operation';
import * as settleHeld from './settleHeld.operation';

export const operations: Record<string, ItemOperation> = { checkEmail, followTurn, sendReply, settleHeld };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
