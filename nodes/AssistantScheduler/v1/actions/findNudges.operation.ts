// Find Nudges: the heartbeat's database question. One item per user with something to say; no items when idle,
// so nothing after this node (the model included) runs.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { countNudges, findNudges } from 'assistant-core';
import { nowParameter, nowProperty, parameter, asData } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Tick ID',
    name: 'tickId',
    type: 'string',
    required: true,
    default: '={{ $json.tick_id }}',
    description: 'The tick that started this heartbeat',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['findNudges'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const tickId = Number(parameter(this, 'tickId', itemIndex));
  const drafts = await findNudges(pool, nowParameter(this, itemIndex), tickId);
  if (drafts.length > 0) await countNudges(pool, tickId, drafts.length);
  return drafts.map((draft) => asData({ ...draft, tickId }));
}
