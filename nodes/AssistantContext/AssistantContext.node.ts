// Assistant Context: who is talking (identity → user), what the agent should know before answering
// (personality, recent turns, relevant memories), storing the turn afterwards, and the settings.
import { NodeConnectionTypes, NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import {
  AssistantInputError,
  getInstanceSettings,
  getUserSettings,
  isTelegramOwner,
  linkIdentity,
  loadContext,
  resolveIdentity,
  storeTurn,
  updateInstanceSettings,
  updateUserSettings,
} from 'assistant-core';
import { asData, parameter, postgresCredentials, runItems, userIdProperty } from '../shared/n8n/runItems';

const channelProperty = (operations: string[]) => ({
  displayName: 'Channel',
  name: 'channel',
  type: 'options' as const,
  options: [
    { name: 'Webhook (API)', value: 'api' },
    { name: 'Telegram', value: 'telegram' },
  ],
  default: 'api',
  description: 'Fixed by the entry point: an API caller can never reach a Telegram identity',
  displayOptions: { show: { operation: operations } },
});

const settingsFields = [
  { displayName: 'Assistant Name', name: 'assistantName', type: 'string' as const, default: '' },
  { displayName: 'Language', name: 'language', type: 'string' as const, default: '', description: 'A Postgres text search configuration: english, german, french, simple, …' },
  { displayName: 'Style', name: 'style', type: 'string' as const, typeOptions: { rows: 3 }, default: '' },
  { displayName: 'Time Zone', name: 'timeZone', type: 'string' as const, default: '', description: 'IANA time zone, e.g. Europe/Vienna' },
];

function jsonObject(value: unknown, field: string): IDataObject | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      return jsonObject(JSON.parse(value), field);
    } catch (error) {
      if (error instanceof AssistantInputError) throw error;
      throw new AssistantInputError(field, 'must be a JSON object');
    }
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw new AssistantInputError(field, 'must be a JSON object');
  return value as IDataObject;
}

export class AssistantContext implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Assistant Context',
    name: 'assistantContext',
    icon: 'file:assistantContext.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{ $parameter["operation"] }}',
    description: "Resolve the user, load the agent's context, store the turn, read and change settings",
    defaults: { name: 'Assistant Context' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    usableAsTool: true,
    credentials: postgresCredentials,
    properties: [
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Check Telegram Chat', value: 'checkTelegramChat', action: 'Check a telegram chat is the owner', description: "Whether a chat is the bot owner's (stores nothing)" },
          { name: 'Get Instance Settings', value: 'getInstanceSettings', action: 'Get the instance settings', description: "Defaults for every user and the owner's Telegram chat ID" },
          { name: 'Get Settings', value: 'getSettings', action: 'Get the user settings', description: "The settings in effect for a user" },
          { name: 'Link Identity', value: 'linkIdentity', action: 'Link an identity to a user', description: 'Let another identity (e.g. a Telegram chat) reach an existing user' },
          { name: 'Load Context', value: 'loadContext', action: 'Load the context for a message', description: 'Personality, recent turns within a token budget, relevant memories, a system prompt' },
          { name: 'Resolve Identity', value: 'resolveIdentity', action: 'Resolve an identity to a user', description: 'Telegram chat ID or webhook user_id → the user ID (created on first contact)' },
          { name: 'Store Turn', value: 'storeTurn', action: 'Store a conversation turn', description: "The user's message and the reply, verbatim" },
          { name: 'Update Instance Settings', value: 'updateInstanceSettings', action: 'Update the instance settings' },
          { name: 'Update Settings', value: 'updateSettings', action: 'Update the user settings' },
        ],
        default: 'loadContext',
      },
      userIdProperty(['loadContext', 'storeTurn', 'getSettings', 'updateSettings', 'linkIdentity']),
      channelProperty(['resolveIdentity', 'linkIdentity']),
      {
        displayName: 'External ID',
        name: 'externalId',
        type: 'string',
        required: true,
        default: '',
        description: 'The Telegram chat ID, or the webhook body\'s user_id',
        displayOptions: { show: { operation: ['resolveIdentity', 'linkIdentity'] } },
      },
      {
        displayName: 'Chat ID',
        name: 'chatId',
        type: 'string',
        required: true,
        default: '',
        displayOptions: { show: { operation: ['checkTelegramChat'] } },
      },
      {
        displayName: 'Session ID',
        name: 'sessionId',
        type: 'string',
        default: '',
        description: 'Conversation thread; empty means "default"',
        displayOptions: { show: { operation: ['loadContext', 'storeTurn'] } },
      },
      {
        displayName: 'Message',
        name: 'message',
        type: 'string',
        typeOptions: { rows: 3 },
        default: '',
        description: "The user's new message, used to find relevant memories",
        displayOptions: { show: { operation: ['loadContext'] } },
      },
      {
        displayName: 'Token Budget',
        name: 'tokenBudget',
        type: 'number',
        typeOptions: { minValue: 0 },
        default: 2000,
        description: 'At most this many (estimated) tokens of recent turns',
        displayOptions: { show: { operation: ['loadContext'] } },
      },
      {
        displayName: 'Memory Limit',
        name: 'memoryLimit',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: 50 },
        default: 8,
        displayOptions: { show: { operation: ['loadContext'] } },
      },
      {
        displayName: 'User Message',
        name: 'userMessage',
        type: 'string',
        typeOptions: { rows: 3 },
        required: true,
        default: '',
        displayOptions: { show: { operation: ['storeTurn'] } },
      },
      {
        displayName: 'Assistant Reply',
        name: 'assistantReply',
        type: 'string',
        typeOptions: { rows: 3 },
        default: '',
        displayOptions: { show: { operation: ['storeTurn'] } },
      },
      {
        displayName: 'Turn Channel',
        name: 'turnChannel',
        type: 'string',
        default: 'api',
        description: 'Where the turn happened (api, telegram, …)',
        displayOptions: { show: { operation: ['storeTurn'] } },
      },
      {
        displayName: 'Metadata',
        name: 'metadata',
        type: 'json',
        default: '{}',
        description: 'A JSON object stored with the turn',
        displayOptions: { show: { operation: ['storeTurn'] } },
      },
      {
        displayName: 'Settings',
        name: 'settings',
        type: 'collection',
        placeholder: 'Add Setting',
        default: {},
        displayOptions: { show: { operation: ['updateSettings'] } },
        options: settingsFields,
      },
      {
        displayName: 'Settings',
        name: 'instanceSettings',
        type: 'collection',
        placeholder: 'Add Setting',
        default: {},
        displayOptions: { show: { operation: ['updateInstanceSettings'] } },
        options: [
          ...settingsFields,
          { displayName: 'Chat Model', name: 'chatModel', type: 'string', default: '', description: "The model name the Chat Model node asks the provider for, e.g. gpt-4o-mini or qwen2.5:7b-instruct" },
          { displayName: 'Owner Telegram Chat ID', name: 'ownerTelegramChatId', type: 'string', default: '' },
        ],
      },
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return runItems(this, async (pool, i) => {
      const operation = this.getNodeParameter('operation', i) as string;
      const userId = () => parameter(this, 'userId', i);
      switch (operation) {
        case 'resolveIdentity':
          return asData(await resolveIdentity(pool, parameter(this, 'channel', i), parameter(this, 'externalId', i)));
        case 'checkTelegramChat': {
          const chatId = parameter(this, 'chatId', i);
          return asData({ chatId: String(chatId ?? ''), allowed: await isTelegramOwner(pool, chatId) });
        }
        case 'loadContext':
          return asData(
            await loadContext(pool, userId(), {
              sessionId: parameter(this, 'sessionId', i),
              message: parameter(this, 'message', i),
              tokenBudget: parameter(this, 'tokenBudget', i),
              memoryLimit: parameter(this, 'memoryLimit', i),
            }),
          );
        case 'storeTurn':
          return asData(
            await storeTurn(pool, userId(), {
              sessionId: parameter(this, 'sessionId', i),
              userMessage: parameter(this, 'userMessage', i),
              assistantReply: parameter(this, 'assistantReply', i),
              channel: parameter(this, 'turnChannel', i),
              metadata: jsonObject(parameter(this, 'metadata', i), 'metadata'),
            }),
          );
        case 'getSettings':
          return asData(await getUserSettings(pool, userId()));
        case 'updateSettings':
          return asData(await updateUserSettings(pool, userId(), parameter(this, 'settings', i) as IDataObject));
        case 'getInstanceSettings':
          return asData(await getInstanceSettings(pool));
        case 'updateInstanceSettings':
          return asData(await updateInstanceSettings(pool, parameter(this, 'instanceSettings', i) as IDataObject));
        case 'linkIdentity':
          return asData(await linkIdentity(pool, userId(), parameter(this, 'channel', i), parameter(this, 'externalId', i)));
        default:
          throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`, { itemIndex: i });
      }
    });
  }
}
