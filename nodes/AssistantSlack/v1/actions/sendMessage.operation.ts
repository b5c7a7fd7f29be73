// Send Message: text to a Slack DM, channel or thread by chat.postMessage (mrkdwn escaped, in parts of 3,000
// characters); the parts' ts values are the result. A send Slack refuses fails the item with Slack's reason.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { AssistantInputError, renderSlack, sendSlackParts } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { slackApp, slackBot } from '../../transport/credential';
import { targetProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  targetProperty,
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '={{ $json.reply }}',
    description: 'Markdown; ampersands and angle brackets are escaped, so it mentions or links no one by accident',
  },
];

const displayOptions = { show: { operation: ['sendMessage'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, _pool: unknown, itemIndex: number): Promise<IDataObject> {
  const text = parameter(this, 'text', itemIndex);
  if (typeof text !== 'string' || text.trim() === '') throw new AssistantInputError('text', 'must be non-empty text');
  const target = String(parameter(this, 'target', itemIndex) ?? '');
  const outcome = await sendSlackParts(slackBot(await slackApp(this)), target, renderSlack({ text }));
  if (outcome.status !== 'delivered') throw new AssistantInputError('target', outcome.error);
  return asData({ sent: true, target, ts: outcome.channelMessageId });
}
