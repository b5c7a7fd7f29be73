// Relate: record that one entity relates to another, e.g. "Stefan works_at Acme".
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { relate } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { validTo } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  { displayName: 'From', name: 'from', type: 'string', required: true, default: '' },
  {
    displayName: 'Relation',
    name: 'relation',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'works_at',
    description: 'The relation type, in snake_case (spaces become underscores)',
  },
  { displayName: 'To', name: 'to', type: 'string', required: true, default: '' },
  {
    displayName: 'Valid From',
    name: 'validFrom',
    type: 'string',
    default: '',
    description: 'ISO 8601 date-time; empty for "always"',
  },
  validTo,
];

const displayOptions = { show: { operation: ['relate'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const relation = await relate(pool, parameter(this, 'userId', itemIndex), {
    from: parameter(this, 'from', itemIndex),
    relation: parameter(this, 'relation', itemIndex),
    to: parameter(this, 'to', itemIndex),
    validFrom: parameter(this, 'validFrom', itemIndex),
    validTo: parameter(this, 'validTo', itemIndex),
  });
  return asData({ relation });
}
