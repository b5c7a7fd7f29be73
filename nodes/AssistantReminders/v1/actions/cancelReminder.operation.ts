// Cancel Reminder: a scheduled reminder will not fire.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { cancelReminder } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Reminder ID',
    name: 'reminderId',
    type: 'string',
    required: true,
    default: '',
    description: 'The reminder to cancel',
  },
];

const displayOptions = { show: { operation: ['cancelReminder'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const reminder = await cancelReminder(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'reminderId', itemIndex),
  );
  return asData({ ok: true, reminder, message: `Reminder ${reminder.id} is cancelled.` });
}
