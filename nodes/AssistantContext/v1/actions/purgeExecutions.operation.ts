// Purge Saved Executions: deletes n8n's saved executions that hold the user's data (after forgetting a memory or
// everything), through n8n's public API with the optional "n8n API" credential. The incoming item is passed on
// with what was purged; without the credential it says that nothing could be purged and why.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { executionsOfUser } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { parameter } from '../../../shared/helpers/parameters';
import { deleteExecution, listExecutions } from '../transport/n8nApi';

const properties: INodeProperties[] = [userIdProperty];

const displayOptions = { show: { operation: ['purgeExecutions'] } };

export const description = updateDisplayOptions(displayOptions, properties);

async function hasApiCredential(context: IExecuteFunctions): Promise<boolean> {
  try {
    await context.getCredentials('n8nApi');
    return true;
  } catch {
    return false;
  }
}

export async function execute(this: IExecuteFunctions, _pool: Pool, itemIndex: number): Promise<IDataObject> {
  const input = this.getInputData()[itemIndex]?.json ?? {};
  const userId = String(parameter(this, 'userId', itemIndex) ?? '');
  if (!(await hasApiCredential(this))) {
    const reason = 'no "n8n API" credential is set on this node, so saved executions could not be purged';
    return { ...input, executionsPurged: 0, executionsNotPurged: reason };
  }
  const ids = executionsOfUser(await listExecutions(this), userId);
  for (const id of ids) await deleteExecution(this, id);
  return { ...input, executionsPurged: ids.length };
}
