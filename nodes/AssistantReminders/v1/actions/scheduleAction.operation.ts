// Schedule Action: an instruction run by the agent for the user on a schedule (interval, calendar rule or cron).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { scheduleAction } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Instruction',
    name: 'instruction',
    type: 'string',
    required: true,
    default: '',
    description: 'What the agent should do on each run',
  },
  {
    displayName: 'Schedule',
    name: 'schedule',
    type: 'string',
    required: true,
    default: '',
    description: 'Every 15 minutes, every weekday at 7:30, cron 30 7 * * 1-5',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['scheduleAction'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  return asData(
    await scheduleAction(
      pool,
      parameter(this, 'userId', itemIndex),
      { instruction: parameter(this, 'instruction', itemIndex), schedule: parameter(this, 'schedule', itemIndex) },
      nowParameter(this, itemIndex),
    ),
  );
}
