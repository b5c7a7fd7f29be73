// Tool Call: for run_tool, a live tool's workflow id (_workflowId) and its inputs, checked against its spec (types
// converted, none missing, none unknown), as the fields Execute Sub-workflow passes on.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { toolCall } from 'assistant-core';

import { parameter } from '../../../shared/helpers/parameters';
import { toolName } from './common.descriptions';

const properties: INodeProperties[] = [
  toolName,
  {
    displayName: 'Input',
    name: 'input',
    type: 'json',
    default: '{}',
    description: 'The inputs, as a JSON object, e.g. {"city": "Paris"}',
  },
];

const displayOptions = { show: { operation: ['toolCall'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return await toolCall(pool, { name: parameter(this, 'name', itemIndex), input: parameter(this, 'input', itemIndex) });
}
