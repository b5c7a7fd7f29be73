// Update: change some fields of a task.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { updateTask } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { updateInput } from '../helpers/taskInput';
import { priorityOptions, statusOptions, taskId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  taskId,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description:
      'Only the fields added here change; empty values change nothing; Due or Due At "none" (or Parent Task ID 0) clears it',
    options: [
      {
        displayName: 'Due',
        name: 'due',
        type: 'string',
        default: '',
        description: 'In the user\'s words (e.g. Friday 17:00), or "none" to remove the due time',
      },
      {
        displayName: 'Due At',
        name: 'dueAt',
        type: 'string',
        default: '',
        description: 'ISO 8601 (without an offset: on the user\'s clock), or "none" to remove the due time',
      },
      { displayName: 'Notes', name: 'notes', type: 'string', typeOptions: { rows: 3 }, default: '' },
      { displayName: 'Parent Task ID', name: 'parentId', type: 'number', default: 0 },
      { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'medium' },
      { displayName: 'Status', name: 'status', type: 'options', options: statusOptions, default: 'open' },
      { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
      { displayName: 'Title', name: 'title', type: 'string', default: '' },
    ],
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['update'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const fields = updateInput(parameter(this, 'updateFields', itemIndex) as IDataObject);
  const taskId = parameter(this, 'taskId', itemIndex);
  return asData({ task: await updateTask(pool, userId, taskId, fields, nowParameter(this, itemIndex)) });
}
