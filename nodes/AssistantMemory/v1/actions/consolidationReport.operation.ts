// Consolidation Report: what the nightly consolidation merged and folded since a time, in plain words.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, consolidationReport } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Since',
    name: 'since',
    type: 'string',
    default: '={{ $now.minus({ hours: 24 }).toISO() }}',
    description: 'The runs since this time (ISO 8601); the last 24 hours by default',
  },
];

const displayOptions = { show: { operation: ['consolidationReport'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const value = parameter(this, 'since', itemIndex);
  const since = new Date(String(value));
  if (value === undefined || value === '' || Number.isNaN(since.getTime()))
    throw new AssistantInputError('since', `must be an ISO 8601 date-time, not ${JSON.stringify(value)}`);
  return asData(await consolidationReport(pool, parameter(this, 'userId', itemIndex), { since }));
}
