// Describe Failure: an LLM or tool failure as a 502/504 webhook answer, or a short apology in chat.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { describeFailure } from 'assistant-core';

import { routeReplies } from '../helpers/reply';
import { replyTarget } from './common.descriptions';

const properties: INodeProperties[] = [
  ...replyTarget,
  {
    displayName: 'Error',
    name: 'error',
    type: 'string',
    default: '={{ $json.error }}',
    description: 'The error the agent reported',
  },
];

const displayOptions = { show: { operation: ['describeFailure'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return routeReplies(this, (itemIndex) => {
    const failure = describeFailure(this.getNodeParameter('error', itemIndex, '') as unknown);
    return {
      text: failure.apology,
      webhookAnswer: { statusCode: failure.statusCode, body: failure.body as JsonObject },
    };
  });
}
