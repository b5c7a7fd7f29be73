// Recall: the memories most relevant to a query (full text, names, recency, embeddings when configured).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { recallWithEmbedding, type Embedder } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { kindOptions, limit } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Query',
    name: 'query',
    type: 'string',
    required: true,
    default: '',
    description: 'What to look for: words, a question, or a name',
  },
  limit,
  {
    displayName: 'Kind Filter',
    name: 'kindFilter',
    type: 'options',
    options: [{ name: 'Any', value: '' }, ...kindOptions],
    default: '',
  },
];

const displayOptions = { show: { operation: ['recall'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject> {
  const query = parameter(this, 'query', itemIndex);
  const { memories, embedding } = await recallWithEmbedding(pool, parameter(this, 'userId', itemIndex), query, {
    limit: parameter(this, 'limit', itemIndex),
    kind: parameter(this, 'kindFilter', itemIndex),
    embedder,
  });
  return asData({ query, count: memories.length, memories, embedding });
}
