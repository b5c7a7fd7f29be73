// Link Identity: let another identity (e.g. a Telegram chat) reach an existing user.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { linkIdentity } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { channel, externalId } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, channel, externalId];

const displayOptions = { show: { operation: ['linkIdentity'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const channelName = parameter(this, 'channel', itemIndex);
  return asData(await linkIdentity(pool, userId, channelName, parameter(this, 'externalId', itemIndex)));
}
