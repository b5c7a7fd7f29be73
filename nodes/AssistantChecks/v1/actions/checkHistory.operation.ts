// Check History: a check's runs, newest first: baseline, unchanged, notified or silenced (with the Judge's
// probability and threshold), failed (with the error), skipped (error "skipped for budget: …", a spending cap refused
// the Judge).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { checkHistory } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  { displayName: 'Check ID', name: 'checkId', type: 'string', required: true, default: '', description: 'The check' },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
  },
];

const displayOptions = { show: { operation: ['checkHistory'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const history = await checkHistory(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'checkId', itemIndex),
    parameter(this, 'limit', itemIndex),
  );
  return asData({ ...history, count: history.runs.length });
}
