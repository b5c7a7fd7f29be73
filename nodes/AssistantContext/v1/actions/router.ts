// Runs the chosen operation of Assistant Context v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as checkTelegramChat from './checkTelegramChat.operation';
import * as forgetEverything from './forgetEverything.operation';
import * as forgetQuestion from './forgetQuestion.operation';
import * as getInstanceSettings from './getInstanceSettings.operation';
import * as getSettings from './getSettings.operation';
import * as linkIdentity from './linkIdentity.operation';
import * as loadContext from './loadContext.operation';
import * as purgeExecutions from './purgeExecutions.operation';
import * as resolveIdentity from './resolveIdentity.operation';
import * as spendingReport from './spendingReport.operation';
import * as storeTurn from './storeTurn.operation';
import * as updateInstanceSettings from './updateInstanceSettings.operation';
import * as updateSettings from './updateSettings.operation';

export const operations: Record<string, ItemOperation> = {
  checkTelegramChat,
  forgetEverything,
  forgetQuestion,
  getInstanceSettings,
  getSettings,
  linkIdentity,
  loadContext,
  purgeExecutions,
  resolveIdentity,
  spendingReport,
  storeTurn,
  updateInstanceSettings,
  updateSettings,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
