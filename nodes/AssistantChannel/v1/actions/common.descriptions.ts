// Parameters Format Reply and Describe Failure share: where the answer goes.
import type { INodeProperties } from 'n8n-workflow';

export const replyTarget: INodeProperties[] = [
  {
    displayName: 'Channel',
    name: 'channel',
    type: 'options',
    options: [
      { name: 'Webhook', value: 'api' },
      { name: 'Telegram', value: 'telegram' },
    ],
    default: 'api',
    description: 'Where the request came from (usually an expression on the checked request)',
  },
  {
    displayName: 'User ID',
    name: 'userId',
    type: 'string',
    default: '',
    description: "The caller's user_id, echoed in the webhook reply",
  },
  {
    displayName: 'Session ID',
    name: 'sessionId',
    type: 'string',
    default: '',
  },
  {
    displayName: 'Chat ID',
    name: 'chatId',
    type: 'string',
    default: '',
    description: 'The Telegram chat to answer (Telegram only)',
  },
];
