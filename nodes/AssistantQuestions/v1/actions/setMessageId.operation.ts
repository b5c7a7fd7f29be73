// Remember Message ID: the channel's id of the message that asked (Telegram's), so a reply to it answers it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { setQuestionMessageId } from 'assistant-core';

import { parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Question ID',
    name: 'questionId',
    type: 'string',
    required: true,
    default: '',
  },
  {
    displayName: 'Message ID',
    name: 'messageId',
    type: 'string',
    required: true,
    default: '={{ $json.result?.message_id }}',
    description: "The channel's ID of the message the question was sent as",
  },
];

const displayOptions = { show: { operation: ['setMessageId'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const questionId = parameter(this, 'questionId', itemIndex);
  await setQuestionMessageId(pool, questionId, parameter(this, 'messageId', itemIndex));
  return { questionId: questionId as string, remembered: true };
}
