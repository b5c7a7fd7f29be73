// Spending Report: what the model calls cost today, this week or this month (the user's time zone), by job and model,
// with the caps that cover the user; the owner sees the whole instance, any other user their own calls.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { spendingReport } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Period',
    name: 'period',
    type: 'options',
    options: [
      { name: 'This Month', value: 'month' },
      { name: 'This Week', value: 'week' },
      { name: 'Today', value: 'today' },
    ],
    default: 'week',
    description: "The calendar day, week (from Monday) or month so far, in the user's time zone",
  },
];

const displayOptions = { show: { operation: ['spendingReport'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const period = parameter(this, 'period', itemIndex);
  return asData(await spendingReport(pool, parameter(this, 'userId', itemIndex), { period }));
}
