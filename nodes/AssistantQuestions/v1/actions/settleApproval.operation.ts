// Settle Approval: after the gate's question, granted only on this user's yes to the question about this very call
// (its tool and a digest of its inputs); a no, no answer in time, or another question refuses it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { settleToolApproval } from 'assistant-core';

import { approvalAnswerProperties, userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { callObject, toolCallProperties } from '../helpers/toolCall';

const properties: INodeProperties[] = [
  userIdProperty,
  ...toolCallProperties,
  ...approvalAnswerProperties('lets the tool run'),
];

const displayOptions = { show: { operation: ['settleApproval'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const call = callObject(this, itemIndex);
  const decision = await settleToolApproval(pool, {
    tool: parameter(this, 'tool', itemIndex),
    userId: parameter(this, 'userId', itemIndex),
    arguments: call,
    questionId: parameter(this, 'questionId', itemIndex),
    status: parameter(this, 'answerStatus', itemIndex),
    answer: parameter(this, 'answer', itemIndex),
  });
  return asData({ ...call, ...decision });
}
