// Remove Person: they no longer reach the assistant; their data is kept, or purged when asked (the owner only).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { removePerson } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { flag } from '../helpers/flags';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Person',
    name: 'person',
    type: 'string',
    required: true,
    default: '',
    description: "The person's name (as listed) or user ID",
  },
  {
    displayName: 'Purge Their Data',
    name: 'purge',
    type: 'string',
    default: '',
    description: 'True: delete their user and everything of theirs; otherwise it is kept (true, false or empty)',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['removePerson'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const removed = await removePerson(pool, {
    callerUserId: parameter(this, 'userId', itemIndex),
    person: parameter(this, 'person', itemIndex),
    purge: flag(parameter(this, 'purge', itemIndex), 'purge'),
    now: nowParameter(this, itemIndex),
  });
  const data = removed.purged ? 'everything of theirs was deleted' : 'their data is kept';
  return {
    result: `${removed.name} was removed and can no longer talk to the assistant; ${data}.`,
    ...asData(removed),
  };
}
