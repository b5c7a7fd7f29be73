// Store Reply: the reply, verbatim, and the turn marked answered (also after the caller stopped waiting).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { finishTurn } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { turnId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  turnId,
  {
    displayName: 'Reply',
    name: 'reply',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '={{ $json.output }}',
  },
];

const displayOptions = { show: { operation: ['finishTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const reply = parameter(this, 'reply', itemIndex);
  const finished = await finishTurn(pool, userId, parameter(this, 'turnId', itemIndex), reply);
  return asData({ userId, reply, ...finished });
}
