// Set DM Policy: who may talk on a channel — the owner only, pairing by code, or an allow list (the owner only).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { requireOwner, setDmPolicy } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Channel',
    name: 'channel',
    type: 'string',
    required: true,
    default: '',
    description: 'The identity channel: telegram, api, slack, email',
  },
  {
    displayName: 'Policy',
    name: 'policy',
    type: 'string',
    required: true,
    default: '',
    description: 'One of owner, pairing, allowlist (or open, for the API entry only)',
  },
  {
    displayName: 'Allowed IDs',
    name: 'allow',
    type: 'string',
    default: '',
    description: 'For an allow list: the external IDs, comma-separated',
  },
];

const displayOptions = { show: { operation: ['setDmPolicy'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  await requireOwner(pool, parameter(this, 'userId', itemIndex));
  const set = await setDmPolicy(pool, {
    channel: parameter(this, 'channel', itemIndex),
    policy: parameter(this, 'policy', itemIndex),
    allow: parameter(this, 'allow', itemIndex),
  });
  return {
    result: `${set.channel}: ${set.policy}${set.allow.length ? ` (${set.allow.join(', ')})` : ''}`,
    ...asData(set),
  };
}
