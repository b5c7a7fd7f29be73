// List People: the people on the install, with the channel identities they talk from (the owner only).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { getDmPolicies, listPeople } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [userIdProperty];

const displayOptions = { show: { operation: ['listPeople'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const people = await listPeople(pool, parameter(this, 'userId', itemIndex));
  return { people: people.map(asData), dmPolicies: asData(await getDmPolicies(pool)) };
}
