// Restore Memory: make a memory the nightly consolidation merged or folded live again (within 30 days).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { restoreMemory } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { memoryId } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, memoryId, nowProperty];

const displayOptions = { show: { operation: ['restoreMemory'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const memory = await restoreMemory(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'memoryId', itemIndex),
    {
      now: nowParameter(this, itemIndex),
    },
  );
  return asData({ restored: memory });
}
