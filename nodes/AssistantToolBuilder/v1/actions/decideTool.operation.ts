// Decide: the operator's answer to the tool's approval question; a yes publishes it, anything else (or no answer)
// deletes the draft.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { decideTool } from 'assistant-core';

import { approvalAnswerProperties } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { toolName } from './common.descriptions';

const properties: INodeProperties[] = [toolName, ...approvalAnswerProperties('activates the tool')];

const displayOptions = { show: { operation: ['decideTool'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await decideTool(pool, workflowApi(this), {
      name: parameter(this, 'name', itemIndex),
      questionId: parameter(this, 'questionId', itemIndex),
      status: parameter(this, 'answerStatus', itemIndex),
      answer: parameter(this, 'answer', itemIndex),
    }),
  );
}
