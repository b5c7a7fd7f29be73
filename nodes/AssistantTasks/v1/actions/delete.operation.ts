// Delete: a task, and its subtasks when asked to (otherwise a task with subtasks is kept).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { deleteTask } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { taskId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  taskId,
  {
    displayName: 'Delete Subtasks Too',
    name: 'withSubtasks',
    type: 'boolean',
    default: false,
    description: 'Whether to delete the subtasks as well (otherwise a task with subtasks is not deleted)',
  },
];

const displayOptions = { show: { operation: ['delete'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const withSubtasks = parameter(this, 'withSubtasks', itemIndex) === true;
  return asData(await deleteTask(pool, userId, parameter(this, 'taskId', itemIndex), withSubtasks));
}
