// Finish Tick: closes the tick's ledger row with its end time and what its delivery step did.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { finishTick } from 'assistant-core';
import { nowParameter, nowProperty, parameter, asData } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  { displayName: 'Tick ID', name: 'tickId', type: 'string', required: true, default: '', description: 'The tick' },
  { displayName: 'Delivered', name: 'delivered', type: 'string', default: '0', description: 'Messages delivered' },
  {
    displayName: 'Failures',
    name: 'failures',
    type: 'string',
    default: '0',
    description: 'Messages that failed or whose outcome is unknown',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['finishTick'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const tickId = Number(parameter(this, 'tickId', itemIndex));
  const delivered = Number(parameter(this, 'delivered', itemIndex) || 0);
  const failures = Number(parameter(this, 'failures', itemIndex) || 0);
  await finishTick(pool, tickId, { delivered, failures }, nowParameter(this, itemIndex));
  return asData({ tickId, delivered, failures });
}
