// Mark Failed: the turn keeps the user's message and records why no reply came (or, after the reply, why it could
// not be delivered).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { failTurn } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { turnId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  turnId,
  {
    displayName: 'Error',
    name: 'error',
    type: 'string',
    required: true,
    default: '={{ $json.error }}',
    description: 'What went wrong, as the failing node reported it',
  },
  {
    displayName: 'After the Reply',
    name: 'afterReply',
    type: 'boolean',
    default: false,
    description: 'Whether the failure came after the reply was stored (its delivery failed)',
  },
];

const displayOptions = { show: { operation: ['failTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const error = parameter(this, 'error', itemIndex);
  const failed = await failTurn(pool, userId, parameter(this, 'turnId', itemIndex), error, {
    afterReply: parameter(this, 'afterReply', itemIndex) === true,
  });
  return asData({ userId, error: typeof error === 'string' ? error : JSON.stringify(error), ...failed });
}
