import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeBaseDescription, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { checkTelegramUpdate, POSTGRES_CREDENTIAL } from './actions/checkTelegramUpdate.operation';
import { checkWebhookRequest, HEADER_AUTH_CREDENTIAL } from './actions/checkWebhookRequest.operation';
import { reply } from './actions/reply.operation';
import { channelProperties } from './description';
import { configureOutputs } from './outputs';

export class AssistantChannelV1 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 1,
      defaults: { name: 'Assistant Channel' },
      inputs: [NodeConnectionTypes.Main],
      outputs: `={{(${configureOutputs})($parameter)}}`,
      credentials: [
        { name: HEADER_AUTH_CREDENTIAL, required: true, displayOptions: { show: { operation: ['checkWebhookRequest'] } } },
        { name: POSTGRES_CREDENTIAL, required: true, displayOptions: { show: { operation: ['checkTelegramUpdate'], allowedChats: ['owner'] } } },
      ],
      properties: channelProperties,
    };
  }

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const operation = this.getNodeParameter('operation', 0) as string;
    if (operation === 'checkWebhookRequest') return await checkWebhookRequest.call(this);
    if (operation === 'checkTelegramUpdate') return await checkTelegramUpdate.call(this);
    if (operation === 'formatReply' || operation === 'describeFailure') return await reply.call(this, operation);
    throw new Error(`Unknown operation "${operation}"`);
  }
}
