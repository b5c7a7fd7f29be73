// Get Turn State: GET /webhook/agent/turn for a webhook caller, by their user_id and a turn_id a POST answered with:
// the turn's status and its reply, failure or open question, always 200; an unknown user or turn is a 404.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { AssistantNotFoundError, findIdentityUser, getTurn, httpError, turnStateAnswer } from 'assistant-core';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'User ID (API)',
    name: 'externalId',
    type: 'string',
    required: true,
    default: '={{ $json.externalId }}',
    description: "The caller's user_id on the webhook",
  },
  {
    displayName: 'Turn ID',
    name: 'turnIdText',
    type: 'string',
    required: true,
    default: '={{ $json.turnId }}',
    description: 'The turn_id a POST /webhook/agent answered with',
  },
];

const displayOptions = { show: { operation: ['getTurnState'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const externalId = String(parameter(this, 'externalId', itemIndex) ?? '');
  const turnId = parameter(this, 'turnIdText', itemIndex);
  const userId = await findIdentityUser(pool, 'api', externalId);
  if (!userId) {
    const message = `user_id: no user ${JSON.stringify(externalId)} has talked to the assistant`;
    return asData(httpError(404, 'unknown_user', message, 'user_id'));
  }
  try {
    return asData(turnStateAnswer(await getTurn(pool, userId, Number(turnId)), { userId: externalId }));
  } catch (error) {
    if (!(error instanceof AssistantNotFoundError)) throw error;
    return asData(httpError(404, 'unknown_turn', `turn_id: no turn ${turnId} of this user`, 'turn_id'));
  }
}
