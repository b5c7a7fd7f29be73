// List Experts: the installed experts (shipped and from the catalogue) and the catalogue entries one could install.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listExperts } from 'assistant-core';

import { asData } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [];

const displayOptions = { show: { operation: ['listExperts'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool): Promise<IDataObject> {
  return asData(await listExperts(pool));
}
