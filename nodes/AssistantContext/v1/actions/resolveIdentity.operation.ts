// Resolve Identity: a Telegram chat ID or webhook user_id → the user ID (created on first contact).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { resolveIdentity } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { channel, externalId } from './common.descriptions';

const properties: INodeProperties[] = [channel, externalId];

const displayOptions = { show: { operation: ['resolveIdentity'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const identity = await resolveIdentity(
    pool,
    parameter(this, 'channel', itemIndex),
    parameter(this, 'externalId', itemIndex),
  );
  return asData(identity);
}
