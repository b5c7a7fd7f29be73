// Runs the chosen operation of Assistant Context v1 for each item, on the assistant's database.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Pool } from 'pg';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { failAllItems } from '../../../shared/helpers/errors';
import { runItems } from '../../../shared/helpers/runItems';
import { assistantDatabase } from '../../../shared/transport/postgres';
import * as checkTelegramChat from './checkTelegramChat.operation';
import * as forgetEverything from './forgetEverything.operation';
import * as getInstanceSettings from './getInstanceSettings.operation';
import * as getSettings from './getSettings.operation';
import * as linkIdentity from './linkIdentity.operation';
import * as loadContext from './loadContext.operation';
import * as purgeExecutions from './purgeExecutions.operation';
import * as resolveIdentity from './resolveIdentity.operation';
import * as storeTurn from './storeTurn.operation';
import * as updateInstanceSettings from './updateInstanceSettings.operation';
import * as updateSettings from './updateSettings.operation';

export const operations: Record<string, ItemOperation> = {
  checkTelegramChat,
  forgetEverything,
  getInstanceSettings,
  getSettings,
  linkIdentity,
  loadContext,
  purgeExecutions,
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
  let pool: Pool;
  try {
    pool = await assistantDatabase(this);
  } catch (error) {
    return failAllItems(this, error);
  }
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, pool, itemIndex));
}
