// Update: change some fields of a memory (re-embedded when its content changes and embeddings are on).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { updateAndEmbed, type Embedder } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { updateInput } from '../helpers/updateInput';
import { kindOptions, memoryId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  memoryId,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description: 'Only the fields added here change; empty values change nothing; "none" empties a list or the source',
    options: [
      { displayName: 'Content', name: 'content', type: 'string', typeOptions: { rows: 3 }, default: '' },
      { displayName: 'Entities', name: 'entities', type: 'string', default: '', description: 'Comma-separated' },
      {
        displayName: 'Importance',
        name: 'importance',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: 5 },
        default: 3,
      },
      { displayName: 'Kind', name: 'kind', type: 'options', options: kindOptions, default: 'fact' },
      { displayName: 'People', name: 'people', type: 'string', default: '', description: 'Comma-separated' },
      { displayName: 'Source', name: 'source', type: 'string', default: '' },
      { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
    ],
  },
];

const displayOptions = { show: { operation: ['update'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject> {
  const userId = parameter(this, 'userId', itemIndex);
  const id = parameter(this, 'memoryId', itemIndex);
  const fields = updateInput(parameter(this, 'updateFields', itemIndex) as IDataObject);
  return asData(await updateAndEmbed(pool, userId, id, fields, embedder));
}
