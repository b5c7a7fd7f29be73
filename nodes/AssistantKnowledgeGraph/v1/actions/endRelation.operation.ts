// End Relation: mark a relation as no longer valid (its history is kept).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { endRelation } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { validTo } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  validTo,
  {
    displayName: 'Relation ID',
    name: 'relationId',
    type: 'number',
    required: true,
    default: 0,
  },
];

const displayOptions = { show: { operation: ['endRelation'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const relationId = parameter(this, 'relationId', itemIndex);
  return asData({ relation: await endRelation(pool, userId, relationId, parameter(this, 'validTo', itemIndex)) });
}
