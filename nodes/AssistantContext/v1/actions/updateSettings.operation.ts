// Update Settings: change a user's own settings.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { updateUserSettings } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';
import { settingsFields } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Settings',
    name: 'settings',
    type: 'collection',
    placeholder: 'Add Setting',
    default: {},
    options: settingsFields,
  },
];

const displayOptions = { show: { operation: ['updateSettings'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const settings = parameter(this, 'settings', itemIndex) as IDataObject;
  return asData(await updateUserSettings(pool, parameter(this, 'userId', itemIndex), settings));
}
