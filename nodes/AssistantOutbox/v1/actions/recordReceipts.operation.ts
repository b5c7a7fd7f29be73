// Record Receipts: a pull channel's word that it has shown a user's messages (the web chat's page), as the HTTP
// answer ({statusCode, body}) of POST /webhook/agent/outbox/receipts {user_id, channel, shown}: each stored message
// named becomes delivered on that channel; a bad field is a 400 naming it, an unknown user_id a 404.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import {
  findIdentityUser,
  httpError,
  parseReceiptsRequest,
  recordShownOnChannel,
  webChatChannel,
} from 'assistant-core';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Receipt (JSON)',
    name: 'receipt',
    type: 'json',
    required: true,
    default: '={{ $json.body }}',
    description: 'The request body: {"user_id": "owner", "channel": "web", "shown": [outbox message IDs]}',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['recordReceipts'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function receiptBody(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const request = parseReceiptsRequest(receiptBody(parameter(this, 'receipt', itemIndex)));
  if ('statusCode' in request) return asData(request);
  const userId = await findIdentityUser(pool, 'api', request.externalId);
  if (!userId) {
    const message = `user_id: no user ${JSON.stringify(request.externalId)} has talked to the assistant`;
    return asData(httpError(404, 'unknown_user', message, 'user_id'));
  }
  const now = nowParameter(this, itemIndex);
  // The one pull channel: the web chat (parseReceiptsRequest takes no other).
  const rows = await recordShownOnChannel(pool, webChatChannel(), userId, request.ids, now);
  const receipts = rows.map((row) => ({
    id: row.id,
    channel: row.channel,
    status: row.status,
    delivered_at: row.deliveredAt,
  }));
  const found = new Set(rows.map((row) => row.id));
  return asData({ statusCode: 200, body: { receipts, unknown_ids: request.ids.filter((id) => !found.has(id)) } });
}
