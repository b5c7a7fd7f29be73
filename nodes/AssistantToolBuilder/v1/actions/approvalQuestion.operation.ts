// Approval Question: after the test execution, the question for the operator (what the tool calls, with which
// credential, and the test's output); when the test failed, the draft is deleted and n8n's message is the result.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { toolApprovalQuestion } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { toolName } from './common.descriptions';

const properties: INodeProperties[] = [
  toolName,
  {
    displayName: 'Test Output',
    name: 'testOutput',
    type: 'string',
    default: '',
    description: "The test execution's output, as JSON",
  },
  {
    displayName: 'Test Error',
    name: 'testError',
    type: 'string',
    default: '',
    description: 'The error of a failed test execution; empty when it worked',
  },
];

const displayOptions = { show: { operation: ['approvalQuestion'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await toolApprovalQuestion(pool, workflowApi(this), {
      name: parameter(this, 'name', itemIndex),
      testOutput: parameter(this, 'testOutput', itemIndex),
      testError: parameter(this, 'testError', itemIndex),
    }),
  );
}
