// Follow Turn: waits for the run of a stored turn and emails, in the user's thread, the question it asks (answered
// by a reply to that email) and then its reply, or one sentence on why there is none. Others on the user's email get
// a copy only after the user's yes. Past the deadline the reply is left to the outbox, and the user is told so.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, followTurnOnEmail } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { emailConfig } from '../../transport/credential';
import { assistantAddressProperty, messageParameter, messageProperty } from './common.descriptions';

const MAX_DEADLINE_SECONDS = 3600;

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    required: true,
    default: 0,
    description: "The stored turn whose run is followed (Store Message's turnId)",
  },
  messageProperty,
  {
    displayName: 'Deadline (Seconds)',
    name: 'deadlineSeconds',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: MAX_DEADLINE_SECONDS },
    default: 900,
    description: 'How long to follow the run (questions included); after it the reply comes through the outbox',
  },
  assistantAddressProperty,
];

const displayOptions = { show: { operation: ['followTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const seconds = parameter(this, 'deadlineSeconds', itemIndex);
  if (typeof seconds !== 'number' || seconds < 1 || seconds > MAX_DEADLINE_SECONDS) {
    throw new AssistantInputError('deadlineSeconds', `must be a number of seconds from 1 to ${MAX_DEADLINE_SECONDS}`);
  }
  const followed = await followTurnOnEmail(pool, await emailConfig(this, itemIndex), {
    userId: String(parameter(this, 'userId', itemIndex) ?? ''),
    turnId: Number(parameter(this, 'turnId', itemIndex)),
    inbound: messageParameter(parameter(this, 'message', itemIndex)),
    deadline: new Date(Date.now() + seconds * 1000),
    signal: this.getExecutionCancelSignal?.(),
  });
  return asData(followed);
}
