// Store Turn: the user's message and the reply, verbatim.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { storeTurn } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { jsonObject } from '../helpers/jsonObject';
import { sessionId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  sessionId,
  {
    displayName: 'User Message',
    name: 'userMessage',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
  },
  {
    displayName: 'Assistant Reply',
    name: 'assistantReply',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
  },
  {
    displayName: 'Turn Channel',
    name: 'turnChannel',
    type: 'string',
    default: 'api',
    description: 'Where the turn happened (api, telegram, …)',
  },
  {
    displayName: 'Metadata',
    name: 'metadata',
    type: 'json',
    default: '{}',
    description: 'A JSON object stored with the turn',
  },
];

const displayOptions = { show: { operation: ['storeTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const turn = await storeTurn(pool, parameter(this, 'userId', itemIndex), {
    sessionId: parameter(this, 'sessionId', itemIndex),
    userMessage: parameter(this, 'userMessage', itemIndex),
    assistantReply: parameter(this, 'assistantReply', itemIndex),
    channel: parameter(this, 'turnChannel', itemIndex),
    metadata: jsonObject(parameter(this, 'metadata', itemIndex), 'metadata'),
  });
  return asData(turn);
}
