// Follow Turn: waits for the run of a stored turn and posts, where the user wrote, the question it asks (with Yes/No
// buttons for an approval) and then its reply, or one sentence on why there is none. Past the deadline the reply is
// left to the outbox (it comes to the user's Slack DM) and the user is told so.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantInputError, followTurnOnSlack } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { slackApp, slackBot } from '../../transport/credential';
import { targetProperty } from './common.descriptions';

const MAX_DEADLINE_SECONDS = 3600;

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    required: true,
    default: 0,
    description: "The stored turn whose run is followed (Store Message's turnId)",
  },
  targetProperty,
  {
    displayName: 'Deadline (Seconds)',
    name: 'deadlineSeconds',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: MAX_DEADLINE_SECONDS },
    default: 900,
    description: 'How long to follow the run (questions included); after it the reply comes through the outbox',
  },
];

const displayOptions = { show: { operation: ['followTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const seconds = parameter(this, 'deadlineSeconds', itemIndex);
  if (typeof seconds !== 'number' || seconds < 1 || seconds > MAX_DEADLINE_SECONDS) {
    throw new AssistantInputError('deadlineSeconds', `must be a number of seconds from 1 to ${MAX_DEADLINE_SECONDS}`);
  }
  const followed = await followTurnOnSlack(pool, slackBot(await slackApp(this)), {
    userId: String(parameter(this, 'userId', itemIndex) ?? ''),
    turnId: Number(parameter(this, 'turnId', itemIndex)),
    target: String(parameter(this, 'target', itemIndex) ?? ''),
    deadline: new Date(Date.now() + seconds * 1000),
    signal: this.getExecutionCancelSignal?.(),
  });
  return asData(followed);
}
