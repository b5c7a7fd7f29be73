// Get: one task by ID.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { getTask } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { taskId } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, taskId];

const displayOptions = { show: { operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const task = await getTask(pool, parameter(this, 'userId', itemIndex), parameter(this, 'taskId', itemIndex));
  return asData({ task });
}
