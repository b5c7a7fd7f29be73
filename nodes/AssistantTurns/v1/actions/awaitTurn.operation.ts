// Wait for Reply: until the turn is answered or failed, or the reply deadline passes (the run goes on; its reply is
// kept with the turn). The deadline is the instance's replyDeadlineSeconds setting unless given here.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, awaitTurn, getInstanceSettings, MAX_REPLY_DEADLINE_SECONDS } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { turnId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  turnId,
  {
    displayName: 'Deadline (Seconds)',
    name: 'deadlineSeconds',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: MAX_REPLY_DEADLINE_SECONDS },
    default: 0,
    description: 'How long to wait; 0 uses the instance setting replyDeadlineSeconds (default 600)',
  },
];

const displayOptions = { show: { operation: ['awaitTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const given = parameter(this, 'deadlineSeconds', itemIndex);
  if (given !== undefined && (typeof given !== 'number' || given < 0 || given > MAX_REPLY_DEADLINE_SECONDS)) {
    const range = `from 0 to ${MAX_REPLY_DEADLINE_SECONDS}`;
    throw new AssistantInputError('deadlineSeconds', `must be a number of seconds ${range}`);
  }
  const seconds = given ? (given as number) : (await getInstanceSettings(pool)).replyDeadlineSeconds;
  const state = await awaitTurn(pool, parameter(this, 'userId', itemIndex), parameter(this, 'turnId', itemIndex), {
    deadline: new Date(Date.now() + seconds * 1000),
    // The webhook's execution stopped: stop waiting (the caller is marked as gone, so the reply goes by the outbox).
    signal: this.getExecutionCancelSignal?.(),
  });
  return asData({ ...state, deadlineSeconds: seconds });
}
