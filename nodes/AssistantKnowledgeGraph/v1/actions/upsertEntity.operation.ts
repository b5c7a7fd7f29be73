// Upsert Entity: create or update a person, company, product, … (unique by name).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { ENTITY_TYPES, upsertEntity } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { name } from './common.descriptions';

const typeOptions = ENTITY_TYPES.map((type) => ({ name: type[0].toUpperCase() + type.slice(1), value: type }));

const properties: INodeProperties[] = [
  userIdProperty,
  name,
  {
    displayName: 'Type',
    name: 'entityType',
    type: 'options',
    options: [{ name: 'Keep / Other', value: '' }, ...typeOptions],
    default: '',
  },
  {
    displayName: 'Summary',
    name: 'summary',
    type: 'string',
    default: '',
    description: 'A short description; empty keeps the current one',
  },
];

const displayOptions = { show: { operation: ['upsertEntity'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const entity = await upsertEntity(pool, parameter(this, 'userId', itemIndex), {
    name: parameter(this, 'name', itemIndex),
    type: parameter(this, 'entityType', itemIndex),
    summary: parameter(this, 'summary', itemIndex),
  });
  return asData({ entity });
}
