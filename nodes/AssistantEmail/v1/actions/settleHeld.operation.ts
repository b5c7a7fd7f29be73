// Settle Held Copies: after the user answered a question, the copies of a reply held for other recipients (people on
// the Cc of their email) are released to the outbox on a yes, or failed with the reason on anything else. A question
// that held nothing settles nothing.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { settleHeldEmails } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Question ID',
    name: 'questionId',
    type: 'string',
    required: true,
    default: '={{ $json.questionId }}',
    description: "The answered question (Store Message's questionId)",
  },
  {
    displayName: 'Answer',
    name: 'answer',
    type: 'string',
    required: true,
    default: '',
    description: "The user's answer (a yes releases the copies)",
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['settleHeld'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return await settleHeldEmails(
    pool,
    parameter(this, 'userId', itemIndex),
    String(parameter(this, 'questionId', itemIndex) ?? ''),
    String(parameter(this, 'answer', itemIndex) ?? ''),
    nowParameter(this, itemIndex),
  );
}
