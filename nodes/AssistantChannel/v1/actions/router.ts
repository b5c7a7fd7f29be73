// Runs the chosen operation of Assistant Channel v1.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { NodeOperation } from '../../../shared/helpers/operations';
import * as admitSender from './admitSender.operation';
import * as answerTurn from './answerTurn.operation';
import * as checkTelegramUpdate from './checkTelegramUpdate.operation';
import * as checkWebhookRequest from './checkWebhookRequest.operation';
import * as describeFailure from './describeFailure.operation';
import * as formatReply from './formatReply.operation';
import * as startTyping from './startTyping.operation';
import * as voiceToText from './voiceToText.operation';

export const operations: Record<string, NodeOperation> = {
  admitSender,
  answerTurn,
  checkTelegramUpdate,
  checkWebhookRequest,
  describeFailure,
  formatReply,
  startTyping,
  voiceToText,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  return await operations[operation].execute.call(this);
}
