// Runs the chosen operation of Assistant Checks v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as addCheck from './addCheck.operation';
import * as changeCheck from './changeCheck.operation';
import * as checkHistory from './checkHistory.operation';
import * as finishCheckRun from './finishCheckRun.operation';
import * as listChecks from './listChecks.operation';
import * as runCheck from './runCheck.operation';

export const operations: Record<string, ItemOperation> = {
  addCheck,
  changeCheck,
  checkHistory,
  finishCheckRun,
  listChecks,
  runCheck,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
