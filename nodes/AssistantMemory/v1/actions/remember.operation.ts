// Remember: store a new memory, embedded when the node has an embeddings credential.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { rememberAndEmbed, type Embedder } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { kindOptions } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Content',
    name: 'content',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
    description: 'The fact to remember, in a full sentence',
  },
  {
    displayName: 'Options',
    name: 'details',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Entities',
        name: 'entities',
        type: 'string',
        default: '',
        description: 'Comma-separated companies, products, places, … it names',
      },
      {
        displayName: 'Importance',
        name: 'importance',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: 5 },
        default: 3,
        description: '1 (trivia) to 5 (essential)',
      },
      { displayName: 'Kind', name: 'kind', type: 'options', options: kindOptions, default: 'fact' },
      {
        displayName: 'People',
        name: 'people',
        type: 'string',
        default: '',
        description: 'Comma-separated names of the people the memory is about',
      },
      {
        displayName: 'Source',
        name: 'source',
        type: 'string',
        default: '',
        description: 'Where it came from, e.g. telegram or api',
      },
      { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
    ],
  },
];

const displayOptions = { show: { operation: ['remember'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const input = {
    content: parameter(this, 'content', itemIndex),
    ...(parameter(this, 'details', itemIndex) as object),
  };
  // `embedding` says whether the vector was stored; a failing endpoint never loses the memory.
  return asData(await rememberAndEmbed(pool, userId, input, embedder));
}
