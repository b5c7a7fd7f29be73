// List Failures: what failed since a time (default the last 24 h), for the user and everyone, as plain lines.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { getUserPreferences, listFailures } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Since',
    name: 'since',
    type: 'string',
    default: '',
    description: 'ISO 8601 time; empty: the last 24 hours',
  },
];

const displayOptions = { show: { operation: ['listFailures'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const userId = parameter(this, 'userId', itemIndex) as string;
  const { timeZone } = await getUserPreferences(pool, userId);
  return asData(await listFailures(pool, { since: parameter(this, 'since', itemIndex), userId, timeZone }));
}
