// Runs the chosen operation of Assistant Experts v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as approvalQuestion from './approvalQuestion.operation';
import * as expertSettings from './expertSettings.operation';
import * as expertWorkflow from './expertWorkflow.operation';
import * as installExpert from './installExpert.operation';
import * as listExperts from './listExperts.operation';
import * as removeExpert from './removeExpert.operation';
import * as setExpertModel from './setExpertModel.operation';

export const operations: Record<string, ItemOperation> = {
  approvalQuestion,
  expertSettings,
  expertWorkflow,
  installExpert,
  listExperts,
  removeExpert,
  setExpertModel,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
