// Set Callback URL: where a webhook user's proactive messages are POSTed (checked by the trigger already).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { setCallbackUrl } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Callback URL',
    name: 'callbackUrl',
    type: 'string',
    default: '',
    description: 'The URL; empty leaves the stored one',
  },
];

const displayOptions = { show: { operation: ['setCallbackUrl'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const userId = parameter(this, 'userId', itemIndex);
  const url = parameter(this, 'callbackUrl', itemIndex);
  if (typeof url === 'string' && url.trim() !== '') await setCallbackUrl(pool, userId, url.trim());
  return asData({ userId, callbackUrl: typeof url === 'string' && url.trim() !== '' ? url.trim() : null });
}
