// Install Expert: after the operator answered the approval question, only a yes creates, tags and publishes the
// expert's workflow through n8n's public API (the "n8n API" credential) and registers it; anything else installs
// nothing and says so.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { installApprovedExpert } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { expertId } from './common.descriptions';

const properties: INodeProperties[] = [
  expertId,
  {
    displayName: 'Question ID',
    name: 'questionId',
    type: 'string',
    required: true,
    default: '',
    description: 'The approval question the operator was asked (Approval Question, then Ask the User)',
  },
  {
    displayName: 'Answer Status',
    name: 'answerStatus',
    type: 'string',
    default: 'answered',
    description: 'Whether the question was answered ("answered") or expired',
  },
  {
    displayName: 'Answer',
    name: 'answer',
    type: 'string',
    default: '',
    description: "The operator's answer; only a yes installs",
  },
];

const displayOptions = { show: { operation: ['installExpert'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await installApprovedExpert(pool, workflowApi(this), {
      expertId: parameter(this, 'expertId', itemIndex),
      questionId: parameter(this, 'questionId', itemIndex),
      status: parameter(this, 'answerStatus', itemIndex),
      answer: parameter(this, 'answer', itemIndex),
    }),
  );
}
