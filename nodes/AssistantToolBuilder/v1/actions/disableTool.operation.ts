// Disable Tool: switches a live tool off (its workflow unpublished); only the operator may.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { disableBuiltTool } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { toolName, userId } from './common.descriptions';

const properties: INodeProperties[] = [userId, toolName];

const displayOptions = { show: { operation: ['disableTool'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await disableBuiltTool(pool, workflowApi(this), {
      userId: parameter(this, 'userId', itemIndex),
      name: parameter(this, 'name', itemIndex),
    }),
  );
}
