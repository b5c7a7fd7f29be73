// Assistant Tasks: the user's to-do list, with priorities, due times, subtasks and tags.
import { NodeConnectionTypes, NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { completeTask, createTask, deleteTask, getTask, listTasks, updateTask, TASK_PRIORITIES, TASK_STATUSES } from 'assistant-core';
import { asData, parameter, postgresCredentials, runItems, userIdProperty } from '../shared/n8n/runItems';

const titleCase = (value: string) => value.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const priorityOptions = TASK_PRIORITIES.map((value) => ({ name: titleCase(value), value }));
const statusOptions = TASK_STATUSES.map((value) => ({ name: titleCase(value), value }));
const ALL = ['create', 'list', 'get', 'update', 'complete', 'delete'];

/**
 * In Update Fields an empty value leaves a field unchanged (so an expression that resolves to nothing never
 * erases data); Due At "none" and Parent Task ID 0 clear them.
 */
function updateInput(fields: IDataObject): IDataObject {
  const input = { ...fields };
  if (typeof input.dueAt === 'string' && input.dueAt.trim().toLowerCase() === 'none') input.dueAt = null;
  if (input.parentId === 0) input.parentId = null;
  return input;
}

export class AssistantTasks implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Assistant Tasks',
    name: 'assistantTasks',
    icon: 'file:assistantTasks.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{ $parameter["operation"] }}',
    description: "Create, list, update, complete and delete the assistant user's tasks",
    defaults: { name: 'Assistant Tasks' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    usableAsTool: true,
    credentials: postgresCredentials,
    properties: [
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Complete', value: 'complete', action: 'Complete a task' },
          { name: 'Create', value: 'create', action: 'Create a task' },
          { name: 'Delete', value: 'delete', action: 'Delete a task' },
          { name: 'Get', value: 'get', action: 'Get a task' },
          { name: 'List', value: 'list', action: 'List tasks', description: 'Filter by status, priority, tag, overdue or due today' },
          { name: 'Update', value: 'update', action: 'Update a task' },
        ],
        default: 'list',
      },
      userIdProperty(ALL),
      { displayName: 'Title', name: 'title', type: 'string', required: true, default: '', displayOptions: { show: { operation: ['create'] } } },
      {
        displayName: 'Task ID',
        name: 'taskId',
        type: 'number',
        required: true,
        default: 0,
        displayOptions: { show: { operation: ['get', 'update', 'complete', 'delete'] } },
      },
      {
        displayName: 'Options',
        name: 'details',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        displayOptions: { show: { operation: ['create'] } },
        options: [
          { displayName: 'Notes', name: 'notes', type: 'string', typeOptions: { rows: 3 }, default: '' },
          { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'medium' },
          { displayName: 'Due At', name: 'dueAt', type: 'string', default: '', description: 'ISO 8601 date-time with offset, e.g. 2026-05-01T09:00:00+02:00' },
          { displayName: 'Parent Task ID', name: 'parentId', type: 'number', default: 0 },
          { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
          { displayName: 'Status', name: 'status', type: 'options', options: statusOptions, default: 'open' },
        ],
      },
      {
        displayName: 'Update Fields',
        name: 'updateFields',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        description: 'Only the fields added here change; empty values change nothing; Due At "none" or Parent Task ID 0 clears it',
        displayOptions: { show: { operation: ['update'] } },
        options: [
          { displayName: 'Title', name: 'title', type: 'string', default: '' },
          { displayName: 'Notes', name: 'notes', type: 'string', typeOptions: { rows: 3 }, default: '' },
          { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'medium' },
          { displayName: 'Status', name: 'status', type: 'options', options: statusOptions, default: 'open' },
          { displayName: 'Due At', name: 'dueAt', type: 'string', default: '', description: 'ISO 8601 date-time with offset, or "none" to remove the due time' },
          { displayName: 'Parent Task ID', name: 'parentId', type: 'number', default: 0 },
          { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
        ],
      },
      {
        displayName: 'Filters',
        name: 'filters',
        type: 'collection',
        placeholder: 'Add Filter',
        default: {},
        displayOptions: { show: { operation: ['list'] } },
        options: [
          {
            displayName: 'Status',
            name: 'status',
            type: 'options',
            options: [{ name: 'Active (Open or In Progress)', value: 'active' }, { name: 'Any', value: 'any' }, ...statusOptions],
            default: 'active',
          },
          { displayName: 'Priority', name: 'priority', type: 'options', options: priorityOptions, default: 'high' },
          { displayName: 'Tag', name: 'tag', type: 'string', default: '' },
          { displayName: 'Overdue', name: 'overdue', type: 'boolean', default: true, description: 'Whether to list only open tasks past their due time' },
          { displayName: 'Due Today', name: 'dueToday', type: 'boolean', default: true, description: "Whether to list only tasks due today in the user's time zone" },
          { displayName: 'Parent Task ID', name: 'parentId', type: 'number', default: 0, description: 'Only the subtasks of this task' },
          { displayName: 'Time Zone', name: 'timeZone', type: 'string', default: '', description: "Overrides the user's time zone for Due Today" },
          { displayName: 'Limit', name: 'limit', type: 'number', typeOptions: { minValue: 1, maxValue: 500 }, default: 100, description: 'Max number of results to return' },
        ],
      },
      {
        displayName: 'Delete Subtasks Too',
        name: 'withSubtasks',
        type: 'boolean',
        default: false,
        description: 'Whether to delete the subtasks as well (otherwise a task with subtasks is not deleted)',
        displayOptions: { show: { operation: ['delete'] } },
      },
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return runItems(this, async (pool, i) => {
      const operation = this.getNodeParameter('operation', i) as string;
      const userId = parameter(this, 'userId', i);
      switch (operation) {
        case 'create': {
          const details = { ...(parameter(this, 'details', i) as IDataObject) };
          if (details.parentId === 0) delete details.parentId;
          return asData({ task: await createTask(pool, userId, { title: parameter(this, 'title', i), ...details }) });
        }
        case 'list': {
          const filters = { ...(parameter(this, 'filters', i) as IDataObject) };
          if (filters.parentId === 0) delete filters.parentId;
          const tasks = await listTasks(pool, userId, filters);
          return asData({ count: tasks.length, tasks });
        }
        case 'get':
          return asData({ task: await getTask(pool, userId, parameter(this, 'taskId', i)) });
        case 'update':
          return asData({ task: await updateTask(pool, userId, parameter(this, 'taskId', i), updateInput(parameter(this, 'updateFields', i) as IDataObject)) });
        case 'complete':
          return asData({ task: await completeTask(pool, userId, parameter(this, 'taskId', i)) });
        case 'delete':
          return asData(await deleteTask(pool, userId, parameter(this, 'taskId', i), parameter(this, 'withSubtasks', i) === true));
        default:
          throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`, { itemIndex: i });
      }
    });
  }
}
