// The answer for the channel the request came from: webhook answers on output 0 as {statusCode, body};
// Telegram messages on output 1 as {chatId, text, parseMode, part, parts}, one item per part.
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { FieldError } from 'systemone-judge/core';
import { telegramChannel } from 'assistant-core';

import { failedItem } from '../../../shared/helpers/errors';

export interface ReplyContent {
  /** The text for a chat. */
  text: string;
  /** The webhook answer, {statusCode, body}. */
  webhookAnswer: JsonObject;
}

/** Reads each item's reply with `read` and sends it to the output of its channel. */
export function routeReplies(
  context: IExecuteFunctions,
  read: (itemIndex: number) => ReplyContent,
): INodeExecutionData[][] {
  const webhook: INodeExecutionData[] = [];
  const telegram: INodeExecutionData[] = [];
  context.getInputData().forEach((_item, itemIndex) => {
    const pairedItem = { item: itemIndex };
    try {
      const channel = context.getNodeParameter('channel', itemIndex) as string;
      const { text, webhookAnswer } = read(itemIndex);
      if (channel === 'api') {
        webhook.push({ json: webhookAnswer, pairedItem });
      } else if (channel === 'telegram') {
        const chatId = String(context.getNodeParameter('chatId', itemIndex, ''));
        if (!/^-?\d{1,20}$/.test(chatId)) throw new FieldError('chatId', `"${chatId}" is not a Telegram chat id`);
        // The channel contract's Telegram parts: under 4,096 characters each, as Telegram HTML.
        const parts = telegramChannel()
          .render({ text })
          .map((part) => ({ text: part.text, parseMode: 'HTML' as const }));
        parts.forEach((part, index) => {
          const json = { chatId, text: part.text, parseMode: part.parseMode, part: index + 1, parts: parts.length };
          telegram.push({ json, pairedItem });
        });
      } else {
        throw new FieldError('channel', `must be "api" or "telegram", got "${channel}"`);
      }
    } catch (error) {
      webhook.push(failedItem(context, error, itemIndex));
    }
  });
  return [webhook, telegram];
}
