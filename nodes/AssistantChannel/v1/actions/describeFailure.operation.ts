// Describe Failure: a failure as the webhook's answer in the assistant's envelope, or a short apology in chat. The
// stage says what failed: the model or a tool (502/504), the message itself (400/413), or the database (503).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { describeFailure, FAILURE_STAGES, type FailureStage } from 'assistant-core';
import { FieldError } from 'systemone-judge/core';

import { routeReplies } from '../helpers/reply';
import { replyTarget } from './common.descriptions';

const properties: INodeProperties[] = [
  ...replyTarget,
  {
    displayName: 'Error',
    name: 'error',
    type: 'string',
    default: '={{ $json.error }}',
    description: 'The error the failing node reported',
  },
  {
    displayName: 'Failed Step',
    name: 'stage',
    type: 'options',
    options: [
      { name: 'Language Model or Tool', value: 'model', description: '502, or 504 when something timed out' },
      { name: 'The Message Itself', value: 'input', description: '400 naming the field, or 413 over a limit' },
      { name: 'Database', value: 'storage', description: '503: nothing could be stored, retry later' },
      {
        name: 'Storing the Message',
        value: 'auto',
        description: 'The message itself when the error names one of its fields, else the database',
      },
    ],
    default: 'model',
  },
];

const displayOptions = { show: { operation: ['describeFailure'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return routeReplies(this, (itemIndex) => {
    const stage = this.getNodeParameter('stage', itemIndex, 'model') as FailureStage;
    if (!(FAILURE_STAGES as readonly string[]).includes(stage)) {
      throw new FieldError('stage', `must be one of ${FAILURE_STAGES.join(', ')}`);
    }
    const failure = describeFailure(this.getNodeParameter('error', itemIndex, '') as unknown, stage);
    return {
      text: failure.apology,
      webhookAnswer: { statusCode: failure.statusCode, body: failure.body as JsonObject },
    };
  });
}
