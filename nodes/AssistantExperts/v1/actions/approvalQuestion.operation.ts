// Approval Question: what the operator is asked before a catalogue expert is installed; refuses anyone but the
// operator, an unknown id and an expert already installed.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { approvalQuestion } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { expertId, userId } from './common.descriptions';

const properties: INodeProperties[] = [userId, expertId];

const displayOptions = { show: { operation: ['approvalQuestion'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await approvalQuestion(pool, {
      userId: parameter(this, 'userId', itemIndex),
      expertId: parameter(this, 'expertId', itemIndex),
    }),
  );
}
