// Store Message: the user's message, stored before anything else runs: as the answer to a question the assistant
// is waiting on (a one-time code only redacted), or as a new pending turn. Limits are checked first.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { receiveMessage } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
  },
  {
    displayName: 'Session ID',
    name: 'sessionId',
    type: 'string',
    default: 'default',
  },
  {
    displayName: 'Channel',
    name: 'channel',
    type: 'options',
    options: [
      { name: 'API', value: 'api', description: 'Only a message with Reply To answers a question' },
      { name: 'Telegram', value: 'telegram', description: 'Any message answers the oldest open question' },
      { name: 'Schedule', value: 'schedule', description: 'A recurring action, started by the minute tick' },
      { name: 'Email', value: 'email', description: 'Only a reply to the email that asked answers a question' },
    ],
    default: 'api',
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    options: [
      {
        displayName: 'Metadata',
        name: 'metadata',
        type: 'json',
        default: '{}',
        description: 'A JSON object of at most 100 kB stored with the turn',
      },
      {
        displayName: 'Reply To',
        name: 'replyTo',
        type: 'string',
        default: '',
        description: 'The ID of the question this message answers (the webhook’s reply_to)',
      },
      {
        displayName: 'Reply To Message ID',
        name: 'replyToMessageId',
        type: 'string',
        default: '',
        description: 'Telegram: the ID of the message the user replied to',
      },
    ],
  },
];

const displayOptions = { show: { operation: ['receiveMessage'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const options = (parameter(this, 'options', itemIndex) ?? {}) as IDataObject;
  const received = await receiveMessage(pool, parameter(this, 'userId', itemIndex), {
    message: parameter(this, 'message', itemIndex),
    sessionId: parameter(this, 'sessionId', itemIndex),
    channel: parameter(this, 'channel', itemIndex),
    metadata: options.metadata === '{}' ? undefined : options.metadata,
    replyTo: options.replyTo,
    replyToMessageId: options.replyToMessageId,
  });
  return asData({ userId: parameter(this, 'userId', itemIndex), ...received });
}
