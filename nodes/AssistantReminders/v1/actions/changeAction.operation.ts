// Change Action: pause, resume (from now: runs missed while paused are skipped) or delete a recurring action.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, deleteAction, pauseAction, resumeAction } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Action ID',
    name: 'actionId',
    type: 'string',
    required: true,
    default: '',
    description: 'The recurring action',
  },
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

const displayOptions = { show: { operation: ['changeAction'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const userId = parameter(this, 'userId', itemIndex);
  const actionId = parameter(this, 'actionId', itemIndex);
  const change = String(parameter(this, 'change', itemIndex) ?? '')
    .trim()
    .toLowerCase();
  if (change === 'pause') {
    const action = await pauseAction(pool, userId, actionId);
    return asData({ ok: true, action, message: `Action ${action.id} is paused.` });
  }
  if (change === 'resume') {
    const action = await resumeAction(pool, userId, actionId, nowParameter(this, itemIndex));
    return asData({ ok: true, action, message: `Action ${action.id} is resumed; the next run is ${action.nextRun}.` });
  }
  if (change === 'delete') {
    const action = await deleteAction(pool, userId, actionId);
    return asData({ ok: true, action, message: `Action ${action.id} is deleted.` });
  }
  throw new AssistantInputError('change', 'must be pause, resume or delete');
}
