// Check History: a check's runs, newest first: baseline, unchanged, notified or silenced (with the Judge's
// probability and threshold), failed (with the error), skipped (error "skipped for budget: …", a spending cap refused
// the Judge).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { checkHistory, markUntrusted, untrustedId } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  { displayName: 'Check ID', name: 'checkId', type: 'string', required: true, default: '', description: 'The check' },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
  },
];

const displayOptions = { show: { operation: ['checkHistory'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const history = await checkHistory(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'checkId', itemIndex),
    parameter(this, 'limit', itemIndex),
  );
  // A run's summary quotes the site (what changed): it reaches the model marked as outside data.
  const id = untrustedId();
  const runs = history.runs.map((run) =>
    run.summary === null ? run : { ...run, summary: markUntrusted(`the checked site`, run.summary, id) },
  );
  return asData({ ...history, runs, count: runs.length });
}
