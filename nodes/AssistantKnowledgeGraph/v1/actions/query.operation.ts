// Query: an entity, its neighbours up to depth 2, and the memories that mention it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { queryGraph } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { name } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  name,
  {
    displayName: 'Depth',
    name: 'depth',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 2 },
    default: 2,
  },
  {
    displayName: 'Include Ended Relations',
    name: 'includeEnded',
    type: 'boolean',
    default: false,
  },
];

const displayOptions = { show: { operation: ['query'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const graph = await queryGraph(pool, parameter(this, 'userId', itemIndex), parameter(this, 'name', itemIndex), {
    depth: parameter(this, 'depth', itemIndex),
    includeEnded: parameter(this, 'includeEnded', itemIndex) === true,
  });
  return asData(graph);
}
