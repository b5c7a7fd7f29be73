// Check Telegram Update: normalise the update; the owner's text messages go to output 0 in the same shape as
// webhook requests (plus chatId); everything to answer without the agent goes to output 1 as {chatId, text}
// (Telegram HTML, escaped).
// Nothing from another chat is passed on, so nothing of theirs is stored.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { escapeHtml, isTelegramOwner, normaliseTelegramUpdate } from 'assistant-core';

import { failedItem } from '../../../shared/helpers/errors';
import { postgresPool } from '../../../shared/transport/postgres';

const properties: INodeProperties[] = [
  {
    displayName: 'Allowed Chats',
    name: 'allowedChats',
    type: 'options',
    options: [
      {
        name: 'Owner Only',
        value: 'owner',
        description: "Only the owner's chat (from the assistant settings) is answered",
      },
      { name: 'Everyone', value: 'everyone', description: 'Any chat may talk to the assistant' },
    ],
    default: 'owner',
  },
  {
    displayName: 'Refusal',
    name: 'refusal',
    type: 'string',
    default: 'Sorry, this is a private assistant.',
    description: 'What other chats are told; nothing they send is stored',
    displayOptions: { show: { allowedChats: ['owner'] } },
  },
];

const displayOptions = { show: { operation: ['checkTelegramUpdate'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const accepted: INodeExecutionData[] = [];
  const refused: INodeExecutionData[] = [];
  const items = this.getInputData();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const pairedItem = { item: itemIndex };
    const result = normaliseTelegramUpdate(items[itemIndex].json);
    if (result.kind === 'ignored') continue;
    const chatId = result.kind === 'message' ? result.request.chatId : result.chatId;
    const ownerOnly = this.getNodeParameter('allowedChats', itemIndex, 'owner') === 'owner';
    let allowed = !ownerOnly;
    if (ownerOnly) {
      try {
        allowed = await isTelegramOwner(await postgresPool(this, itemIndex), chatId);
      } catch (error) {
        const message = `Could not read the owner's chat id: ${(error as Error).message}`;
        accepted.push(failedItem(this, new NodeOperationError(this.getNode(), message, { itemIndex }), itemIndex));
        continue;
      }
    }
    if (!allowed) {
      const text = escapeHtml(this.getNodeParameter('refusal', itemIndex) as string);
      refused.push({ json: { chatId, text, parseMode: 'HTML' }, pairedItem });
    } else if (result.kind === 'unsupported') {
      const text = escapeHtml(`Sorry, ${result.reason}.`);
      refused.push({ json: { chatId: result.chatId, text, parseMode: 'HTML' }, pairedItem });
    } else {
      accepted.push({ json: result.request as unknown as JsonObject, pairedItem });
    }
  }
  return [accepted, refused];
}
