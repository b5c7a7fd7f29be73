// Runs the chosen operation of Assistant Tool Builder v1 for each item, on the assistant's database (Check Agent Tool
// Call without it).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { runItems } from '../../../shared/helpers/runItems';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as checkAgentCall from './checkAgentCall.operation';
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
  // Checking a router's call needs no database (and the router workflow no Postgres credential).
  if (this.getNodeParameter('operation', 0) === 'checkAgentCall') {
    return await runItems(this, (itemIndex) => checkAgentCall.execute.call(this, itemIndex));
  }
  return await routeStorageOperation(this, operations);
}
