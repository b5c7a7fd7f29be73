// Parameters several operations of Assistant Tasks v1 share.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { TASK_PRIORITIES, TASK_STATUSES } from 'assistant-core';

const titleCase = (value: string) => value.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

export const priorityOptions: INodePropertyOptions[] = TASK_PRIORITIES.map((value) => ({
  name: titleCase(value),
  value,
}));

export const statusOptions: INodePropertyOptions[] = TASK_STATUSES.map((value) => ({ name: titleCase(value), value }));

export const taskId: INodeProperties = {
  displayName: 'Task ID',
  name: 'taskId',
  type: 'number',
  required: true,
  default: 0,
};
