// Check Sender: who is talking, before anything of the message is stored. The owner's Slack user id (from the
// credential) is let in as the owner's user, anyone else as Slack's DM policy says (the people gate: owner only,
// pairing by code, an allow list); the rest get one sentence back ({admitted: false, reply}).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { admitSlackSender, AssistantInputError } from 'assistant-core';

import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { slackApp } from '../../transport/credential';

const properties: INodeProperties[] = [
  {
    displayName: 'Slack User ID',
    name: 'externalId',
    type: 'string',
    required: true,
    default: '={{ $json.externalId }}',
    description: "The sender's Slack user ID (the trigger's externalId)",
  },
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    default: '={{ $json.text }}',
    description: "The message's text: a pairing code in it pairs a stranger, where Slack's DM policy allows pairing",
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['checkSender'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const externalId = parameter(this, 'externalId', itemIndex);
  if (typeof externalId !== 'string' || externalId.trim() === '') {
    throw new AssistantInputError('externalId', "must be the sender's Slack user ID");
  }
  const { ownerUserId } = await slackApp(this);
  const text = parameter(this, 'text', itemIndex);
  const admission = await admitSlackSender(pool, {
    ownerSlackUserId: ownerUserId,
    externalId: externalId.trim(),
    text: typeof text === 'string' ? text : '',
    now: nowParameter(this, itemIndex),
  });
  if (admission.kind === 'owner' || admission.kind === 'person') {
    return asData({ admitted: true, as: admission.kind, userId: admission.userId, externalId });
  }
  return asData({ admitted: false, reply: admission.reply, externalId });
}
