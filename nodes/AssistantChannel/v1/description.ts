// Parameters of the Assistant Channel node, one block per operation.
import type { INodeProperties } from 'n8n-workflow';

const replyTarget: INodeProperties[] = [
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
    displayOptions: { show: { operation: ['formatReply', 'describeFailure'] } },
  },
  {
    displayName: 'User ID',
    name: 'userId',
    type: 'string',
    default: '',
    description: "The caller's user_id, echoed in the webhook reply",
    displayOptions: { show: { operation: ['formatReply', 'describeFailure'] } },
  },
  {
    displayName: 'Session ID',
    name: 'sessionId',
    type: 'string',
    default: '',
    displayOptions: { show: { operation: ['formatReply', 'describeFailure'] } },
  },
  {
    displayName: 'Chat ID',
    name: 'chatId',
    type: 'string',
    default: '',
    description: 'The Telegram chat to answer (Telegram only)',
    displayOptions: { show: { operation: ['formatReply', 'describeFailure'] } },
  },
];

export const channelProperties: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Check Webhook Request',
        value: 'checkWebhookRequest',
        action: 'Check a webhook request',
        description: 'Check the API key header and validate {message, user_id, session_id?, metadata?}; rejections carry a JSON answer',
      },
      {
        name: 'Check Telegram Update',
        value: 'checkTelegramUpdate',
        action: 'Check a telegram update',
        description: "Normalise a Telegram update and refuse chats other than the owner's",
      },
      {
        name: 'Format Reply',
        value: 'formatReply',
        action: 'Format the reply',
        description: 'Build the webhook JSON {reply, user_id, session_id}, or Telegram messages split under 4,096 characters',
      },
      {
        name: 'Describe Failure',
        value: 'describeFailure',
        action: 'Describe a failure',
        description: 'Turn an LLM or tool failure into a 502/504 JSON answer, or a short apology in chat',
      },
    ],
    default: 'checkWebhookRequest',
  },
  {
    displayName: 'Allowed Chats',
    name: 'allowedChats',
    type: 'options',
    options: [
      { name: 'Owner Only', value: 'owner', description: "Only the owner's chat (from the assistant settings) is answered" },
      { name: 'Everyone', value: 'everyone', description: 'Any chat may talk to the assistant' },
    ],
    default: 'owner',
    displayOptions: { show: { operation: ['checkTelegramUpdate'] } },
  },
  {
    displayName: 'Refusal',
    name: 'refusal',
    type: 'string',
    default: 'Sorry, this is a private assistant.',
    description: 'What other chats are told; nothing they send is stored',
    displayOptions: { show: { operation: ['checkTelegramUpdate'], allowedChats: ['owner'] } },
  },
  ...replyTarget,
  {
    displayName: 'Reply',
    name: 'reply',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '={{ $json.output }}',
    description: "The agent's answer",
    displayOptions: { show: { operation: ['formatReply'] } },
  },
  {
    displayName: 'Error',
    name: 'error',
    type: 'string',
    default: '={{ $json.error }}',
    description: 'The error the agent reported',
    displayOptions: { show: { operation: ['describeFailure'] } },
  },
];
