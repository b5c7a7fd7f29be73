// Forget: delete a memory.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { forgetMemory } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { memoryId } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, memoryId];

const displayOptions = { show: { operation: ['forget'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  return asData({ forgotten: await forgetMemory(pool, userId, parameter(this, 'memoryId', itemIndex)) });
}
