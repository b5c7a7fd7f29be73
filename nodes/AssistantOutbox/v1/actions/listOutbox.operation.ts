// List Outbox: a webhook user's proactive messages after an id, whatever their delivery status (for pulling), as the
// HTTP answer ({statusCode, body}); an unknown user_id is a 404 naming it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { findIdentityUser, httpError, listOutbox } from 'assistant-core';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'User ID (API)',
    name: 'externalId',
    type: 'string',
    required: true,
    default: '={{ $json.externalId }}',
    description: "The caller's user_id on the webhook",
  },
  {
    displayName: 'After',
    name: 'after',
    type: 'string',
    default: '={{ $json.after }}',
    description: 'Only messages with a larger ID',
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'string',
    default: '={{ $json.limit }}',
    description: 'At most this many (1-500, default 100)',
  },
];

const displayOptions = { show: { operation: ['listOutbox'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const externalId = parameter(this, 'externalId', itemIndex);
  const userId = await findIdentityUser(pool, 'api', externalId);
  if (!userId) {
    const message = `user_id: no user ${JSON.stringify(externalId)} has talked to the assistant`;
    return asData(httpError(404, 'unknown_user', message, 'user_id'));
  }
  const messages = await listOutbox(pool, userId, {
    after: parameter(this, 'after', itemIndex),
    limit: parameter(this, 'limit', itemIndex),
  });
  const body = {
    messages: messages.map((m) => ({
      id: m.id,
      user_id: m.apiUserId,
      kind: m.kind,
      text: m.text,
      created_at: m.createdAt,
      data: m.data,
      channel: m.channel,
      status: m.status,
      attempts: m.attempts,
      last_error: m.lastError,
      delivered_at: m.deliveredAt,
    })),
    next_after: messages.length ? messages[messages.length - 1].id : Number(parameter(this, 'after', itemIndex) || 0),
  };
  return asData({ statusCode: 200, body });
}
