// Weigh Approval: a tool call under the `judge` rule, with the Judge's answer: the user is asked when the Judge's
// probability that they would want to be asked is at or above the stored threshold (approvalJudgeThreshold), and
// also when the Judge gave no answer (saying why); below it, the call runs. Code decides from the number.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { weighToolApproval } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { callObject, toolCallProperties } from '../helpers/toolCall';

const properties: INodeProperties[] = [
  userIdProperty,
  ...toolCallProperties,
  {
    displayName: 'Probability',
    name: 'probability',
    type: 'string',
    default: '',
    placeholder: "e.g. {{ $json.answers?.ask?.noul ?? '' }}",
    description: "The Judge's probability of yes (ask the user first); empty when it gave none",
  },
  {
    displayName: 'Judge Error',
    name: 'judgeError',
    type: 'string',
    default: '',
    description: 'Why the Judge gave no answer, if it did not; the user is then asked',
  },
];

const displayOptions = { show: { operation: ['weighApproval'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const call = callObject(this, itemIndex);
  const decision = await weighToolApproval(pool, {
    tool: parameter(this, 'tool', itemIndex),
    userId: parameter(this, 'userId', itemIndex),
    arguments: call,
    probability: parameter(this, 'probability', itemIndex),
    error: parameter(this, 'judgeError', itemIndex),
  });
  return asData({ ...call, ...decision });
}
