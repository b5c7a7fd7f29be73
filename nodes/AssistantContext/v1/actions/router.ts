// Runs the chosen operation of Assistant Context v1 for each item, on the assistant's database.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { runItems } from '../../../shared/helpers/runItems';
import { assistantDatabase } from '../../../shared/transport/postgres';
import * as checkTelegramChat from './checkTelegramChat.operation';
import * as getInstanceSettings from './getInstanceSettings.operation';
import * as getSettings from './getSettings.operation';
import * as linkIdentity from './linkIdentity.operation';
import * as loadContext from './loadContext.operation';
import * as resolveIdentity from './resolveIdentity.operation';
import * as storeTurn from './storeTurn.operation';
import * as updateInstanceSettings from './updateInstanceSettings.operation';
import * as updateSettings from './updateSettings.operation';

export const operations: Record<string, ItemOperation> = {
  checkTelegramChat,
  getInstanceSettings,
  getSettings,
  linkIdentity,
  loadContext,
  resolveIdentity,
  storeTurn,
  updateInstanceSettings,
  updateSettings,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  const pool = await assistantDatabase(this);
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, pool, itemIndex));
}
