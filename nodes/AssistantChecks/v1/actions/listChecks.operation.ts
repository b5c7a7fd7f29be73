// List Checks: the user's checks, what each watches, when it runs next, and whether it is failing.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listChecks } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [userIdProperty];

const displayOptions = { show: { operation: ['listChecks'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const checks = await listChecks(pool, parameter(this, 'userId', itemIndex));
  return asData({ count: checks.length, checks });
}
