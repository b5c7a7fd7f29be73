// Check Telegram Chat: whether a chat is the bot owner's (stores nothing).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { isTelegramOwner } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Chat ID',
    name: 'chatId',
    type: 'string',
    required: true,
    default: '',
  },
];

const displayOptions = { show: { operation: ['checkTelegramChat'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const chatId = parameter(this, 'chatId', itemIndex);
  return asData({ chatId: String(chatId ?? ''), allowed: await isTelegramOwner(pool, chatId) });
}
