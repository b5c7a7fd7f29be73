// Queue Message: a message the assistant sends on its own, into the outbox for the user's channel.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, queueMessage } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Kind',
    name: 'kind',
    type: 'string',
    required: true,
    default: 'notice',
    description: 'Reminder, nudge, action, briefing or notice',
  },
  { displayName: 'Text', name: 'text', type: 'string', required: true, default: '', description: 'The message' },
  {
    displayName: 'Dedupe Key',
    name: 'dedupeKey',
    type: 'string',
    default: '',
    description: 'Queued once per key (e.g. nudge:&lt;user&gt;:&lt;tick&gt;)',
  },
  { displayName: 'Data (JSON)', name: 'data', type: 'string', default: '{}', description: 'Extra data for callbacks' },
  { displayName: 'Tick ID', name: 'tickId', type: 'string', default: '', description: 'The tick it belongs to' },
];

const displayOptions = { show: { operation: ['queueMessage'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  let data: Record<string, unknown> = {};
  const raw = parameter(this, 'data', itemIndex);
  if (raw !== undefined && raw !== '') {
    try {
      data = typeof raw === 'string' ? JSON.parse(raw) : (raw as Record<string, unknown>);
    } catch {
      throw new AssistantInputError('data', 'must be a JSON object');
    }
    if (!data || typeof data !== 'object' || Array.isArray(data))
      throw new AssistantInputError('data', 'must be a JSON object');
  }
  const tick = parameter(this, 'tickId', itemIndex);
  const result = await queueMessage(pool, parameter(this, 'userId', itemIndex), {
    kind: parameter(this, 'kind', itemIndex),
    text: parameter(this, 'text', itemIndex),
    dedupeKey: (parameter(this, 'dedupeKey', itemIndex) as string) || null,
    data,
    tickId: tick === '' || tick === undefined ? null : Number(tick),
  });
  return asData({ queued: result.queued, ...result.message });
}
