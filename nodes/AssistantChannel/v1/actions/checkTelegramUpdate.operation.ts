// Check Telegram Update: normalise the update; the owner's text messages (with "By DM Policy": also the people the
// policy lets in, decided by the gate, admit) go to output 0 in the same shape as webhook requests (plus chatId);
// everything to answer without the agent goes to output 1 as {chatId, text} (Telegram HTML, escaped): a refusal, or a
// stranger's pairing reply. Nothing from a chat not let in is passed on, so nothing of theirs is stored.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { admit, escapeHtml, isTelegramOwner, normaliseTelegramUpdate } from 'assistant-core';

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
      {
        name: 'By DM Policy',
        value: 'policy',
        description:
          'The Telegram DM policy in the assistant settings: the owner only, people paired by code, or an allow list',
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
    displayOptions: { show: { allowedChats: ['owner', 'policy'] } },
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
    const allowedChats = this.getNodeParameter('allowedChats', itemIndex, 'owner') as string;
    let allowed = allowedChats === 'everyone';
    let reply: string | undefined;
    try {
      const pool = allowed ? undefined : await postgresPool(this, itemIndex);
      if (pool && allowedChats === 'owner') allowed = await isTelegramOwner(pool, chatId);
      if (pool && allowedChats === 'policy') {
        const text = result.kind === 'message' ? result.request.message : '';
        const admission = await admit(pool, { channel: 'telegram', externalId: chatId, text, now: new Date() });
        allowed = admission.kind === 'owner' || admission.kind === 'person';
        if (admission.kind === 'pairing-reply') reply = admission.reply;
      }
    } catch (error) {
      const message = `Could not check who may talk: ${(error as Error).message}`;
      accepted.push(failedItem(this, new NodeOperationError(this.getNode(), message, { itemIndex }), itemIndex));
      continue;
    }
    if (!allowed) {
      const text = escapeHtml(reply ?? (this.getNodeParameter('refusal', itemIndex) as string));
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
