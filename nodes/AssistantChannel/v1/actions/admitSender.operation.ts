// Admit Sender: the gate every channel runs on an inbound message before anything else (assistant-core's admit):
// the owner and the people the channel's DM policy lets in go to output 0 with {admission, userId} added; a stranger
// goes to output 1 with the reply to send them (a refusal or the pairing reply) as `reply`, and as the webhook's
// {statusCode, body} (403 refused, 200 with the pairing reply). Nothing of a stranger's is passed on.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { admit, httpError } from 'assistant-core';

import { failedItem } from '../../../shared/helpers/errors';
import { nowParameter, nowProperty } from '../../../shared/helpers/parameters';
import { postgresPool } from '../../../shared/transport/postgres';

const properties: INodeProperties[] = [
  {
    displayName: 'Channel',
    name: 'identityChannel',
    type: 'string',
    required: true,
    default: 'api',
    description: 'The identity channel the sender writes on: telegram, api, slack, email',
  },
  {
    displayName: 'Sender ID',
    name: 'externalId',
    type: 'string',
    required: true,
    default: '={{ $json.externalId }}',
    description: "The sender's ID inside the channel (a chat ID, a webhook user_id, an address)",
  },
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    default: '={{ $json.message }}',
    description: 'The message text (a pairing code is looked for in it)',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['admitSender'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const admitted: INodeExecutionData[] = [];
  const strangers: INodeExecutionData[] = [];
  const items = this.getInputData();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const pairedItem = { item: itemIndex };
    try {
      const text = this.getNodeParameter('text', itemIndex, '');
      const admission = await admit(await postgresPool(this, itemIndex), {
        channel: String(this.getNodeParameter('identityChannel', itemIndex)),
        externalId: String(this.getNodeParameter('externalId', itemIndex)),
        text: typeof text === 'string' ? text : '',
        now: nowParameter(this, itemIndex),
      });
      if (admission.kind === 'owner' || admission.kind === 'person') {
        const json = { ...items[itemIndex].json, admission: admission.kind, userId: admission.userId };
        admitted.push({ json, pairedItem });
      } else {
        const answer =
          admission.kind === 'refused'
            ? httpError(403, 'not_allowed', admission.reply)
            : { statusCode: 200, body: { reply: admission.reply } };
        strangers.push({ json: { kind: admission.kind, reply: admission.reply, ...answer } as JsonObject, pairedItem });
      }
    } catch (error) {
      const wrapped = new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex });
      admitted.push(failedItem(this, wrapped, itemIndex));
    }
  }
  return [admitted, strangers];
}
