// Draft Tool: checks the spec (no literal secret, the URL through the outbound guard, the credential by name), renders
// the tool's workflow and creates it inactive through n8n's public API. Outputs the spec's samples (the test run's
// inputs) and, under _draft, the name, the workflow id and the workflow JSON for Execute Sub-workflow.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { DRAFT_FIELD, draftTool } from 'assistant-core';

import { parameter } from '../../../shared/helpers/parameters';
import { webTools } from '../../../shared/transport/webTools';
import { workflowApi } from '../../../shared/transport/workflowApi';
import { userId } from './common.descriptions';

const properties: INodeProperties[] = [
  userId,
  {
    displayName: 'Spec',
    name: 'spec',
    type: 'json',
    required: true,
    default: '{}',
    description:
      'The spec as JSON: name, purpose, inputs (name, type, description, sample each), method, the URL template, the credential name, body and response fields (docs/TOOL-BUILDING.md)',
  },
];

const displayOptions = { show: { operation: ['draftTool'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const guard = webTools().guard;
  const draft = await draftTool(
    pool,
    workflowApi(this),
    async (url) => {
      const decision = await guard.check(url);
      return decision.allowed ? { allowed: true } : { allowed: false, reason: decision.reason };
    },
    { userId: parameter(this, 'userId', itemIndex), spec: parameter(this, 'spec', itemIndex) },
  );
  return {
    ...draft.samples,
    [DRAFT_FIELD]: { name: draft.name, workflowId: draft.workflowId, workflowJson: draft.workflowJson },
  };
}
