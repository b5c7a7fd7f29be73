// Get Instance Settings: the defaults for every user and the owner's Telegram chat ID.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { getInstanceSettings } from 'assistant-core';

import { asData } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [];

const displayOptions = { show: { operation: ['getInstanceSettings'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool): Promise<IDataObject> {
  return asData(await getInstanceSettings(pool));
}
