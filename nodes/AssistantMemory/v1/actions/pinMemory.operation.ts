// Pin Memory: pin a memory (consolidation never folds it) or unpin it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { pinMemory } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { memoryId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  memoryId,
  {
    displayName: 'Pinned',
    name: 'pinned',
    type: 'boolean',
    default: true,
    description: 'Whether the memory is pinned (never folded by the nightly consolidation)',
  },
];

const displayOptions = { show: { operation: ['pinMemory'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const memory = await pinMemory(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'memoryId', itemIndex),
    parameter(this, 'pinned', itemIndex),
  );
  return asData({ memory });
}
