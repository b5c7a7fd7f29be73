// Decide Approval: whether a tool call may run now, must be asked about first (the question to ask), or is refused,
// by the tool's rule (the registry's default or the operator's toolApprovals setting). Code decides, not the model.
// The output carries the call's own inputs, so the tool's nodes after the gate read them as before.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { decideToolApproval } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { callObject, toolCallProperties } from '../helpers/toolCall';

const properties: INodeProperties[] = [userIdProperty, ...toolCallProperties];

const displayOptions = { show: { operation: ['decideApproval'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const call = callObject(this, itemIndex);
  const decision = await decideToolApproval(pool, {
    tool: parameter(this, 'tool', itemIndex),
    userId: parameter(this, 'userId', itemIndex),
    arguments: call,
  });
  return asData({ ...call, ...decision });
}
