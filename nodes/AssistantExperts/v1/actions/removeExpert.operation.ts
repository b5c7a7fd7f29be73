// Remove Expert: deletes an installed catalogue expert's workflow (n8n's public API, the "n8n API" credential) and
// its registration; only the operator may, and shipped experts stay.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { removeExpert } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { expertId, userId } from './common.descriptions';

const properties: INodeProperties[] = [userId, expertId];

const displayOptions = { show: { operation: ['removeExpert'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await removeExpert(pool, workflowApi(this), {
      userId: parameter(this, 'userId', itemIndex),
      expertId: parameter(this, 'expertId', itemIndex),
    }),
  );
}
