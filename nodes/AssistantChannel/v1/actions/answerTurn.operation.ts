// Answer Turn: the webhook's answer for a turn Wait for Reply returned — the reply (200), the failure with the turn
// id, or 504 with the turn id when the deadline passed first (the run goes on and keeps its reply).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { turnAnswer, type AwaitedTurn } from 'assistant-core';
import { FieldError } from 'systemone-judge/core';

import { failedItem } from '../../../shared/helpers/errors';

const properties: INodeProperties[] = [
  {
    displayName: 'Turn',
    name: 'turn',
    type: 'json',
    default: '={{ $json }}',
    description: 'What Wait for Reply returned: turnId, status, reply, error, deadlineSeconds',
  },
  {
    displayName: 'User ID',
    name: 'userId',
    type: 'string',
    default: '',
    description: "The caller's user_id, echoed in the reply",
  },
  {
    displayName: 'Session ID',
    name: 'sessionId',
    type: 'string',
    default: '',
  },
];

const displayOptions = { show: { operation: ['answerTurn'] } };

export const description = updateDisplayOptions(displayOptions, properties);

const STATUSES = ['pending', 'answered', 'failed'];

function readTurn(value: unknown): AwaitedTurn {
  const turn = (typeof value === 'string' ? JSON.parse(value) : value) as Partial<AwaitedTurn> | null;
  if (
    !turn ||
    typeof turn !== 'object' ||
    !Number.isSafeInteger(turn.turnId) ||
    !STATUSES.includes(String(turn.status))
  ) {
    throw new FieldError('turn', 'must be what Wait for Reply returned ({turnId, status, reply, error})');
  }
  return turn as AwaitedTurn;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const answers = this.getInputData().map((_item, itemIndex): INodeExecutionData => {
    try {
      const answer = turnAnswer(readTurn(this.getNodeParameter('turn', itemIndex)), {
        userId: String(this.getNodeParameter('userId', itemIndex, '')),
        sessionId: String(this.getNodeParameter('sessionId', itemIndex, '')),
      });
      return { json: answer as unknown as JsonObject, pairedItem: { item: itemIndex } };
    } catch (error) {
      return failedItem(this, error instanceof SyntaxError ? new FieldError('turn', 'is not JSON') : error, itemIndex);
    }
  });
  return [answers];
}
