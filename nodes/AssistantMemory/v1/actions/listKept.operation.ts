// List Kept: what the assistant keeps about the user (memories with ids and dates) and, with About, that entity's
// graph facts, as plain lines for the memory panel.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listKept } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'About',
    name: 'about',
    type: 'string',
    default: '',
    description: 'An entity ("Stefan"): its graph facts and the memories about it; empty for all memories',
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['listKept'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await listKept(pool, parameter(this, 'userId', itemIndex), {
      about: parameter(this, 'about', itemIndex),
      limit: parameter(this, 'limit', itemIndex),
      now: nowParameter(this, itemIndex),
    }),
  );
}
