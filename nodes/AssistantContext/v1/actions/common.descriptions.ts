// Parameters several operations of Assistant Context v1 share.
import type { INodeProperties } from 'n8n-workflow';

export const channel: INodeProperties = {
  displayName: 'Channel',
  name: 'channel',
  type: 'options',
  options: [
    { name: 'Webhook (API)', value: 'api' },
    { name: 'Telegram', value: 'telegram' },
  ],
  default: 'api',
  description: 'Fixed by the entry point: an API caller can never reach a Telegram identity',
};

export const externalId: INodeProperties = {
  displayName: 'External ID',
  name: 'externalId',
  type: 'string',
  required: true,
  default: '',
  description: "The Telegram chat ID, or the webhook body's user_id",
};

export const sessionId: INodeProperties = {
  displayName: 'Session ID',
  name: 'sessionId',
  type: 'string',
  default: '',
  description: 'Conversation thread; empty means "default"',
};

/** The settings a user may override; the instance settings hold their defaults. */
export const settingsFields: INodeProperties[] = [
  { displayName: 'Assistant Name', name: 'assistantName', type: 'string', default: '' },
  {
    displayName: 'Language',
    name: 'language',
    type: 'string',
    default: '',
    description: 'A Postgres text search configuration: english, german, french, simple, …',
  },
  {
    displayName: 'Locale',
    name: 'locale',
    type: 'string',
    default: '',
    description: 'BCP 47, e.g. de-AT: the language times and dates are read and answered in',
  },
  { displayName: 'Style', name: 'style', type: 'string', typeOptions: { rows: 3 }, default: '' },
  {
    displayName: 'Time Zone',
    name: 'timeZone',
    type: 'string',
    default: '',
    description: 'IANA time zone, e.g. Europe/Vienna',
  },
];
