// Issue Pairing Code: a one-time code; the owner's lets a new person in (named), anyone's own pairs another channel.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { issuePairingCode } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { flag } from '../helpers/flags';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Person Name',
    name: 'personName',
    type: 'string',
    default: '',
    description: 'Who the code lets in (the owner only); empty with For Self',
  },
  {
    displayName: 'For Self',
    name: 'forSelf',
    type: 'string',
    default: '',
    description: 'True: the code pairs another channel to the user who asks (true, false or empty)',
  },
  {
    displayName: 'Valid for Minutes',
    name: 'minutes',
    type: 'string',
    default: '',
    description: 'How long the code works, 1 to 1440; empty for 15',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['issuePairingCode'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const minutes = parameter(this, 'minutes', itemIndex);
  const issued = await issuePairingCode(pool, {
    callerUserId: parameter(this, 'userId', itemIndex),
    personName: parameter(this, 'personName', itemIndex),
    forSelf: flag(parameter(this, 'forSelf', itemIndex), 'forSelf'),
    minutes: minutes === '' ? undefined : minutes,
    now: nowParameter(this, itemIndex),
  });
  const who =
    'newPerson' in issued.for ? `lets ${issued.for.newPerson} in as a new person` : 'pairs another channel to you';
  return {
    result:
      `Pairing code ${issued.code} (${who}); single use, valid until ${issued.expiresAt}. ` +
      'Whoever has it sends it as their message to the assistant on the channel to pair.',
    code: issued.code,
    expiresAt: issued.expiresAt,
  };
}
