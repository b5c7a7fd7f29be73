// Set Reminder: `when` in the user's words, read by code in their zone; an unreadable or past time is a sentence for the agent.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { setReminder } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    default: '',
    description: 'What to remind the user of (empty with a task: the task title)',
  },
  {
    displayName: 'When',
    name: 'when',
    type: 'string',
    required: true,
    default: '',
    description: "The user's words: in 2 hours, tomorrow at 9, next Monday 14:30, 2026-04-01 09:00",
  },
  {
    displayName: 'Task ID',
    name: 'taskId',
    type: 'string',
    default: '',
    description: 'Optional: the task this reminder is about',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['setReminder'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  return asData(
    await setReminder(
      pool,
      parameter(this, 'userId', itemIndex),
      {
        text: parameter(this, 'text', itemIndex),
        when: parameter(this, 'when', itemIndex),
        taskId: parameter(this, 'taskId', itemIndex),
      },
      nowParameter(this, itemIndex),
    ),
  );
}
