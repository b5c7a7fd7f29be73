// Set Expert Model: gives an expert its own model, or ("default") the chat model setting again.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { setExpertModel } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { expertId } from './common.descriptions';

const properties: INodeProperties[] = [
  expertId,
  {
    displayName: 'Model',
    name: 'model',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'e.g. gpt-4o or default',
    description: 'The model name its runs ask the provider for; "default" for the chat model setting',
  },
];

const displayOptions = { show: { operation: ['setExpertModel'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await setExpertModel(pool, parameter(this, 'expertId', itemIndex), parameter(this, 'model', itemIndex)),
  );
}
