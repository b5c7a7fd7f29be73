// List: the user's tasks, filtered by status, priority, tag, parent, overdue or due today.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { listTasks } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { withoutEmptyParent } from '../helpers/taskInput';
import { priorityOptions, statusOptions } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      {
        displayName: 'Due Today',
        name: 'dueToday',
        type: 'boolean',
        default: true,
        description: "Whether to list only tasks due today in the user's time zone",
      },
      {
        displayName: 'Limit',
        name: 'limit',
        type: 'number',
        // The domain caps a list at 500; saved workflows rely on the default of 100, so it stays.
        // eslint-disable-next-line n8n-nodes-base/node-param-type-options-max-value-present
        typeOptions: { minValue: 1, maxValue: 500 },
        // eslint-disable-next-line n8n-nodes-base/node-param-default-wrong-for-limit
        default: 100,
        description: 'Max number of results to return',
      },
      {
        displayName: 'Overdue',
        name: 'overdue',
        type: 'boolean',
        default: true,
        description: 'Whether to list only open tasks past their due time',
      },
      {
        displayName: 'Parent Task ID',
        name: 'parentId',
        type: 'number',
        default: 0,
        description: 'Only the subtasks of this task',
      },
      { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'high' },
      {
        displayName: 'Status',
        name: 'status',
        type: 'options',
        options: [
          { name: 'Active (Open or In Progress)', value: 'active' },
          { name: 'Any', value: 'any' },
          ...statusOptions,
        ],
        default: 'active',
      },
      { displayName: 'Tag', name: 'tag', type: 'string', default: '' },
      {
        displayName: 'Time Zone',
        name: 'timeZone',
        type: 'string',
        default: '',
        description: "Overrides the user's time zone for Due Today",
      },
    ],
  },
];

const displayOptions = { show: { operation: ['list'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const filters = withoutEmptyParent(parameter(this, 'filters', itemIndex) as IDataObject);
  const tasks = await listTasks(pool, parameter(this, 'userId', itemIndex), filters);
  return asData({ count: tasks.length, tasks });
}
