// List Reminders: the user's reminders (scheduled by default), as one item.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listReminders } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Status',
    name: 'status',
    type: 'string',
    default: 'scheduled',
    description: 'Scheduled, fired, cancelled or any',
  },
];

const displayOptions = { show: { operation: ['listReminders'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const reminders = await listReminders(pool, parameter(this, 'userId', itemIndex), {
    status: parameter(this, 'status', itemIndex),
  });
  return asData({ count: reminders.length, reminders });
}
