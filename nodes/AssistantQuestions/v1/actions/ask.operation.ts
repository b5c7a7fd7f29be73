// Ask: records a question for the user, tied to the run's turn; it expires after the questionTtlSeconds setting
// (default 5 minutes). The workflow then sends it on Telegram; the webhook's caller gets it as needs_input.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { askUser, QUESTION_KINDS } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    default: 0,
    description: 'The turn whose run asks (0: asked outside a run)',
  },
  {
    displayName: 'Kind',
    name: 'kind',
    type: 'options',
    options: QUESTION_KINDS.map((kind) => ({ name: kind.replace(/_/g, ' '), value: kind })),
    default: 'question',
    description: 'A one-time code is stored redacted and typed by the step that waits for it',
  },
  {
    displayName: 'Question',
    name: 'question',
    type: 'string',
    typeOptions: { rows: 2 },
    required: true,
    default: '',
  },
  {
    displayName: 'Attempt',
    name: 'attempt',
    type: 'number',
    default: 1,
    description: 'Which time this is that the run asks for a code on this page',
  },
];

const displayOptions = { show: { operation: ['ask'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const turnId = parameter(this, 'turnId', itemIndex);
  const asked = await askUser(pool, parameter(this, 'userId', itemIndex), {
    kind: parameter(this, 'kind', itemIndex),
    question: parameter(this, 'question', itemIndex),
    turnId: turnId === 0 ? undefined : turnId,
    attempt: parameter(this, 'attempt', itemIndex),
  });
  return asData(asked);
}
