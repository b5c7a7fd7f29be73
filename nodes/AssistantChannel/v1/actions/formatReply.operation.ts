// Format Reply: the agent's answer as the webhook JSON {reply, user_id, session_id}, or Telegram messages.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { routeReplies } from '../helpers/reply';
import { replyTarget } from './common.descriptions';

const properties: INodeProperties[] = [
  ...replyTarget,
  {
    displayName: 'Reply',
    name: 'reply',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '={{ $json.output }}',
    description: "The agent's answer",
  },
];

const displayOptions = { show: { operation: ['formatReply'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return routeReplies(this, (itemIndex) => {
    const answer = this.getNodeParameter('reply', itemIndex, '') as unknown;
    let text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    if (text.trim() === '') text = '(The assistant gave an empty answer.)';
    const userId = this.getNodeParameter('userId', itemIndex, '') as string;
    const sessionId = this.getNodeParameter('sessionId', itemIndex, '') as string;
    return { text, webhookAnswer: { statusCode: 200, body: { reply: text, user_id: userId, session_id: sessionId } } };
  });
}
