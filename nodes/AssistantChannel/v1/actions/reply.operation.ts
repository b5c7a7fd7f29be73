// Format Reply and Describe Failure: the answer for the channel the request came from. Webhook answers go to
// output 0 as {statusCode, body}; Telegram messages to output 1 as {chatId, text, parseMode}, one item per part.
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { describeFailure } from 'assistant-core';
import { telegramMessages } from 'assistant-core';

export async function reply(this: IExecuteFunctions, operation: 'formatReply' | 'describeFailure'): Promise<INodeExecutionData[][]> {
  const webhook: INodeExecutionData[] = [];
  const telegram: INodeExecutionData[] = [];
  this.getInputData().forEach((_item, itemIndex) => {
    const pairedItem = { item: itemIndex };
    const channel = this.getNodeParameter('channel', itemIndex) as string;
    let text: string;
    let webhookAnswer: JsonObject;
    if (operation === 'formatReply') {
      const answer = this.getNodeParameter('reply', itemIndex, '') as unknown;
      text = typeof answer === 'string' ? answer : JSON.stringify(answer);
      if (text.trim() === '') text = '(The assistant gave an empty answer.)';
      const userId = this.getNodeParameter('userId', itemIndex, '') as string;
      const sessionId = this.getNodeParameter('sessionId', itemIndex, '') as string;
      webhookAnswer = { statusCode: 200, body: { reply: text, user_id: userId, session_id: sessionId } };
    } else {
      const failure = describeFailure(this.getNodeParameter('error', itemIndex, '') as unknown);
      text = failure.apology;
      webhookAnswer = { statusCode: failure.statusCode, body: failure.body as JsonObject };
    }
    if (channel === 'api') {
      webhook.push({ json: webhookAnswer, pairedItem });
    } else if (channel === 'telegram') {
      const chatId = String(this.getNodeParameter('chatId', itemIndex, ''));
      if (!/^-?\d{1,20}$/.test(chatId)) throw new NodeOperationError(this.getNode(), `chatId: "${chatId}" is not a Telegram chat id`, { itemIndex });
      telegramMessages(text).forEach((part, index, all) => telegram.push({ json: { chatId, text: part.text, parseMode: part.parseMode, part: index + 1, parts: all.length }, pairedItem }));
    } else {
      throw new NodeOperationError(this.getNode(), `channel: must be "api" or "telegram", got "${channel}"`, { itemIndex });
    }
  });
  return [webhook, telegram];
}
