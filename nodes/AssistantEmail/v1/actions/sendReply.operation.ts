// Send Reply: one email in the user's thread (In-Reply-To and References set, "Re: " subject): a pairing answer, the
// receipt of an answer. Its Message-ID is the result; a refusal by the SMTP server fails the item with its reason.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { AssistantInputError, emailReplyTo, sendEmail } from 'assistant-core';

import { parameter } from '../../../shared/helpers/parameters';
import { emailConfig } from '../../transport/credential';
import { assistantAddressProperty, messageParameter, messageProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  messageProperty,
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    typeOptions: { rows: 4 },
    required: true,
    default: '={{ $json.text ?? $json.reply }}',
    description: 'The plain text sent (an escaped HTML alternative goes with it)',
  },
  assistantAddressProperty,
];

const displayOptions = { show: { operation: ['sendReply'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, _pool: unknown, itemIndex: number): Promise<IDataObject> {
  const text = parameter(this, 'text', itemIndex);
  if (typeof text !== 'string' || text.trim() === '') throw new AssistantInputError('text', 'must be non-empty text');
  const inbound = messageParameter(parameter(this, 'message', itemIndex));
  const outcome = await sendEmail(await emailConfig(this, itemIndex), emailReplyTo(inbound, text));
  if (outcome.status !== 'delivered') throw new AssistantInputError('smtp', `the email was not sent: ${outcome.error}`);
  return { to: inbound.externalId, messageId: outcome.channelMessageId ?? null };
}
