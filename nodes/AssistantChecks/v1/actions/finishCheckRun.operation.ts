// Finish Check Run: notify (no gate, or the Judge's probability at or above the check's threshold), stay silent
// (below it), or fail and keep the change for the next run (the Judge could not be asked); when a spending cap refused
// the Judge (Judge Error Type "budget_exceeded"), the run is skipped for budget, keeps the change and is no failure.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { finishCheckRun } from 'assistant-core';

import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  { displayName: 'Run ID', name: 'runId', type: 'string', required: true, default: '', description: 'The check run' },
  {
    displayName: 'Judge Probability',
    name: 'probability',
    type: 'string',
    default: '',
    description: "The Judge's yes probability for a gated check (its answer to the notify question)",
  },
  {
    displayName: 'Judge Error',
    name: 'judgeError',
    type: 'string',
    default: '',
    description: 'Why the Judge gave no answer, when it failed',
  },
  {
    displayName: 'Judge Error Type',
    name: 'judgeErrorType',
    type: 'string',
    default: '',
    description:
      "The Judge's machine-readable error type (the failed item's errorType); budget_exceeded skips the run for budget",
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['finishCheckRun'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await finishCheckRun(
      pool,
      parameter(this, 'runId', itemIndex),
      {
        probability: parameter(this, 'probability', itemIndex),
        judgeError: parameter(this, 'judgeError', itemIndex),
        judgeErrorType: parameter(this, 'judgeErrorType', itemIndex),
      },
      nowParameter(this, itemIndex),
    ),
  );
}
