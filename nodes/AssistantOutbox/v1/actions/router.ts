// Runs the chosen operation of Assistant Outbox v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as deliverDue from './deliverDue.operation';
import * as listOutbox from './listOutbox.operation';
import * as queueMessage from './queueMessage.operation';
import * as recordReceipts from './recordReceipts.operation';
import * as setCallbackUrl from './setCallbackUrl.operation';

export const operations: Record<string, ItemOperation> = {
  deliverDue,
  listOutbox,
  queueMessage,
  recordReceipts,
  setCallbackUrl,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
