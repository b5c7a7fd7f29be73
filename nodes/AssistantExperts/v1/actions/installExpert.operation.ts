// Install Expert: after the operator answered the approval question, only a yes creates, tags and publishes the
// expert's workflow through n8n's public API (the "n8n API" credential) and registers it; anything else installs
// nothing and says so.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { installApprovedExpert } from 'assistant-core';

import { approvalAnswerProperties } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { expertId } from './common.descriptions';

const properties: INodeProperties[] = [expertId, ...approvalAnswerProperties('installs')];

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
