// Get: one memory by ID.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { getMemory } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { memoryId } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, memoryId];

const displayOptions = { show: { operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const memory = await getMemory(pool, parameter(this, 'userId', itemIndex), parameter(this, 'memoryId', itemIndex));
  return asData({ memory });
}
