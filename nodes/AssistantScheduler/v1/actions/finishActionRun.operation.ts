// Finish Action Run: records how a recurring action's run ended, and the turn it ran as.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, finishActionRun } from 'assistant-core';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  { displayName: 'Run ID', name: 'runId', type: 'string', required: true, default: '', description: 'The action run' },
  {
    displayName: 'Status',
    name: 'status',
    type: 'string',
    required: true,
    default: 'succeeded',
    description: 'Succeeded or failed',
  },
  { displayName: 'Error', name: 'error', type: 'string', default: '', description: 'Why it failed' },
  { displayName: 'Turn ID', name: 'turnId', type: 'string', default: '', description: 'The turn the run was' },
];

const displayOptions = { show: { operation: ['finishActionRun'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const status = parameter(this, 'status', itemIndex);
  if (status !== 'succeeded' && status !== 'failed')
    throw new AssistantInputError('status', 'must be succeeded or failed');
  const turn = parameter(this, 'turnId', itemIndex);
  await finishActionRun(pool, parameter(this, 'runId', itemIndex), {
    status,
    error: (parameter(this, 'error', itemIndex) as string) || null,
    turnId: turn === '' || turn === undefined ? null : Number(turn),
  });
  return asData({ runId: Number(parameter(this, 'runId', itemIndex)), status });
}
