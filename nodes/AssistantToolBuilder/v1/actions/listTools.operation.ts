// List Tools: every built tool with its purpose, status, inputs and what it calls.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listBuiltTools } from 'assistant-core';

import { asData } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [];

const displayOptions = { show: { operation: ['listTools'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool): Promise<IDataObject> {
  return asData({ tools: await listBuiltTools(pool) });
}
