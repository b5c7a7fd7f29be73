// Gather Briefing: the facts of a user's daily briefing, from the data, with a plain draft the model may phrase.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { gatherBriefing } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [userIdProperty, nowProperty];

const displayOptions = { show: { operation: ['gatherBriefing'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  return asData(await gatherBriefing(pool, parameter(this, 'userId', itemIndex), nowParameter(this, itemIndex)));
}
