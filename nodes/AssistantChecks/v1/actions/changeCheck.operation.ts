// Change Check: pause, resume (the baseline is kept) or delete a check.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, deleteCheck, pauseCheck, resumeCheck } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  { displayName: 'Check ID', name: 'checkId', type: 'string', required: true, default: '', description: 'The check' },
  {
    displayName: 'Change',
    name: 'change',
    type: 'string',
    required: true,
    default: '',
    description: 'Pause, resume or delete',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['changeCheck'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const checkId = parameter(this, 'checkId', itemIndex);
  const change = String(parameter(this, 'change', itemIndex) ?? '')
    .trim()
    .toLowerCase();
  if (change === 'pause') {
    const check = await pauseCheck(pool, userId, checkId);
    return asData({ ok: true, check, message: `Check ${check.id} is paused.` });
  }
  if (change === 'resume') {
    const check = await resumeCheck(pool, userId, checkId, nowParameter(this, itemIndex));
    return asData({ ok: true, check, message: `Check ${check.id} is resumed; it runs next ${check.nextRun}.` });
  }
  if (change === 'delete') {
    const check = await deleteCheck(pool, userId, checkId);
    return asData({ ok: true, check, message: `Check ${check.id} is deleted.` });
  }
  throw new AssistantInputError('change', 'must be pause, resume or delete');
}
