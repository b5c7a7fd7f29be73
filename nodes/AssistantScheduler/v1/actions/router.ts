// Runs the chosen operation of Assistant Scheduler v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as findNudges from './findNudges.operation';
import * as finishActionRun from './finishActionRun.operation';
import * as finishTick from './finishTick.operation';
import * as gatherBriefing from './gatherBriefing.operation';
import * as startTick from './startTick.operation';

export const operations: Record<string, ItemOperation> = {
  findNudges,
  finishActionRun,
  finishTick,
  gatherBriefing,
  startTick,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
