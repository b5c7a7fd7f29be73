// Expert Workflow: the workflow that runs an installed expert (shipped or from the catalogue), for ask_expert.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { expertWorkflow } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { expertId } from './common.descriptions';

const properties: INodeProperties[] = [expertId];

const displayOptions = { show: { operation: ['expertWorkflow'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(await expertWorkflow(pool, parameter(this, 'expertId', itemIndex)));
}
