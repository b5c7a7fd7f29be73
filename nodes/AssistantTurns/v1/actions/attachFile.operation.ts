// Attach File: keeps a file a run made (a browser screenshot) with the user's turn; the webhook's reply carries it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { attachToTurn } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { turnId } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  turnId,
  {
    displayName: 'File Name',
    name: 'fileName',
    type: 'string',
    required: true,
    default: '={{ $json.fileName }}',
  },
  {
    displayName: 'MIME Type',
    name: 'mimeType',
    type: 'string',
    required: true,
    default: '={{ $json.mimeType }}',
  },
  {
    displayName: 'Data (Base64)',
    name: 'data',
    type: 'string',
    required: true,
    default: '={{ $json.png }}',
    description: 'The file, base64-encoded (at most 5 MB)',
  },
];

const displayOptions = { show: { operation: ['attachFile'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const attached = await attachToTurn(
    pool,
    parameter(this, 'userId', itemIndex),
    parameter(this, 'turnId', itemIndex),
    {
      fileName: parameter(this, 'fileName', itemIndex),
      mimeType: parameter(this, 'mimeType', itemIndex),
      data: parameter(this, 'data', itemIndex),
    },
  );
  return asData(attached);
}
