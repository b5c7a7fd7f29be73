// Recent: the newest memories.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { recentMemories } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { limit } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, limit];

const displayOptions = { show: { operation: ['recent'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const memories = await recentMemories(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'limit', itemIndex),
  );
  return asData({ count: memories.length, memories });
}
