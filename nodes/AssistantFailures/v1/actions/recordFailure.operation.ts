// Record Failure: a failed execution, as the Error Trigger describes it, into the failures table (secrets scrubbed).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { recordFailure } from 'assistant-core';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Workflow',
    name: 'workflow',
    type: 'string',
    required: true,
    default: '={{ $json.workflow?.name }}',
    description: 'The failed workflow',
  },
  {
    displayName: 'Node',
    name: 'node',
    type: 'string',
    default: '={{ $json.execution?.lastNodeExecuted ?? $json.execution?.error?.node?.name }}',
    description: 'The node that failed',
  },
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    required: true,
    default: '={{ $json.execution?.error?.message ?? $json.trigger?.error?.message }}',
    description: 'The error message',
  },
  {
    displayName: 'Execution ID',
    name: 'executionId',
    type: 'string',
    default: '={{ $json.execution?.id }}',
    description: 'The failed execution',
  },
];

const displayOptions = { show: { operation: ['recordFailure'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const text = (name: string) => {
    const value = parameter(this, name, itemIndex);
    return value === undefined || value === null || value === '' ? null : String(value);
  };
  const id = await recordFailure(pool, {
    source: 'workflow',
    workflow: text('workflow'),
    node: text('node'),
    message: text('message') ?? 'no error message',
    executionId: text('executionId'),
  });
  return asData({ failureId: id });
}
