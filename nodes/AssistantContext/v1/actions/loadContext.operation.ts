// Load Context: personality, recent turns within a token budget, relevant memories (by meaning too, with the optional
// Assistant Embeddings API credential) and a system prompt.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { loadContext } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { embedderFor } from '../../../shared/transport/embeddings';
import { sessionId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  sessionId,
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    description: "The user's new message, used to find relevant memories",
  },
  {
    displayName: 'Token Budget',
    name: 'tokenBudget',
    type: 'number',
    typeOptions: { minValue: 0 },
    default: 2000,
    description: 'At most this many (estimated) tokens of recent turns',
  },
  {
    displayName: 'Memory Limit',
    name: 'memoryLimit',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 50 },
    default: 8,
  },
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    default: 0,
    description: 'The turn being answered (stored on arrival): only the turns before it are history. 0: all turns.',
  },
];

const displayOptions = { show: { operation: ['loadContext'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const context = await loadContext(pool, parameter(this, 'userId', itemIndex), {
    sessionId: parameter(this, 'sessionId', itemIndex),
    message: parameter(this, 'message', itemIndex),
    tokenBudget: parameter(this, 'tokenBudget', itemIndex),
    memoryLimit: parameter(this, 'memoryLimit', itemIndex),
    turnId: parameter(this, 'turnId', itemIndex) || undefined,
    embedder: await embedderFor(this),
  });
  return asData(context);
}
