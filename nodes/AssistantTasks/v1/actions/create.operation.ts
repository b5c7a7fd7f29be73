// Create: a new task, optionally a subtask, with notes, priority, due time (in words or ISO), tags and status.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { createTask } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { withoutEmptyParent } from '../helpers/taskInput';
import { priorityOptions, statusOptions } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  { displayName: 'Title', name: 'title', type: 'string', required: true, default: '' },
  {
    displayName: 'Options',
    name: 'details',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Due',
        name: 'due',
        type: 'string',
        default: '',
        description: "In the user's words, read in their time zone and locale, e.g. tomorrow at 17:00",
      },
      {
        displayName: 'Due At',
        name: 'dueAt',
        type: 'string',
        default: '',
        description: "ISO 8601, e.g. 2026-05-01T09:00:00+02:00; without an offset, on the user's clock",
      },
      { displayName: 'Notes', name: 'notes', type: 'string', typeOptions: { rows: 3 }, default: '' },
      { displayName: 'Parent Task ID', name: 'parentId', type: 'number', default: 0 },
      { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'medium' },
      { displayName: 'Status', name: 'status', type: 'options', options: statusOptions, default: 'open' },
      { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
    ],
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['create'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const details = withoutEmptyParent(parameter(this, 'details', itemIndex) as IDataObject);
  const input = { title: parameter(this, 'title', itemIndex), ...details };
  const now = nowParameter(this, itemIndex);
  return asData({ task: await createTask(pool, parameter(this, 'userId', itemIndex), input, now) });
}
