// Runs the chosen operation of Assistant Tool Builder v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as approvalQuestion from './approvalQuestion.operation';
import * as decideTool from './decideTool.operation';
import * as deleteTool from './deleteTool.operation';
import * as disableTool from './disableTool.operation';
import * as draftTool from './draftTool.operation';
import * as listTools from './listTools.operation';
import * as markAnswer from './markAnswer.operation';
import * as toolCall from './toolCall.operation';

export const operations: Record<string, ItemOperation> = {
  approvalQuestion,
  decideTool,
  deleteTool,
  disableTool,
  draftTool,
  listTools,
  markAnswer,
  toolCall,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
