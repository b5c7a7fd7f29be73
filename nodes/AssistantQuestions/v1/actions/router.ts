// Runs the chosen operation of Assistant Questions v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as ask from './ask.operation';
import * as decideApproval from './decideApproval.operation';
import * as setMessageId from './setMessageId.operation';
import * as settleApproval from './settleApproval.operation';
import * as waitForAnswer from './waitForAnswer.operation';
import * as weighApproval from './weighApproval.operation';

export const operations: Record<string, ItemOperation> = {
  ask,
  decideApproval,
  setMessageId,
  settleApproval,
  waitForAnswer,
  weighApproval,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
