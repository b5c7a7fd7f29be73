// Runs the chosen operation of Assistant Turns v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as attachFile from './attachFile.operation';
import * as awaitTurn from './awaitTurn.operation';
import * as failTurn from './failTurn.operation';
import * as finishTurn from './finishTurn.operation';
import * as getTurnState from './getTurnState.operation';
import * as receiveMessage from './receiveMessage.operation';

export const operations: Record<string, ItemOperation> = {
  attachFile,
  awaitTurn,
  failTurn,
  finishTurn,
  getTurnState,
  receiveMessage,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
