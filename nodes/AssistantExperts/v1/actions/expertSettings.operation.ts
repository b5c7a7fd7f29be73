// Expert Settings: what an expert's run uses: its own model, or the chat model setting.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { expertSettings } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { expertId } from './common.descriptions';

const properties: INodeProperties[] = [expertId];

const displayOptions = { show: { operation: ['expertSettings'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(await expertSettings(pool, parameter(this, 'expertId', itemIndex)));
}
