// Forget Everything: every memory, the knowledge graph, tasks, conversation turns, pending questions and the
// user's own settings, deleted; the user and their identities stay.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { forgetEverything } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [userIdProperty];

const displayOptions = { show: { operation: ['forgetEverything'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData({ deleted: await forgetEverything(pool, parameter(this, 'userId', itemIndex)) });
}
