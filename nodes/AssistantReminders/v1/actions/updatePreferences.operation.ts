// Update Preferences: the user's time zone, locale, quiet hours (no nudges) and daily briefing time (or off).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { updateUserPreferences } from 'assistant-core';
import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Time Zone',
    name: 'timeZone',
    type: 'string',
    default: '',
    description: 'IANA zone, e.g. Europe/Vienna; empty keeps it',
  },
  {
    displayName: 'Locale',
    name: 'locale',
    type: 'string',
    default: '',
    description: 'BCP 47, e.g. de-AT: the language times and dates are read in; empty keeps it',
  },
  {
    displayName: 'Quiet Hours',
    name: 'quietHours',
    type: 'string',
    default: '',
    description: 'E.g. 22:00-07:00, or off; empty keeps them.',
  },
  {
    displayName: 'Briefing Time',
    name: 'briefingTime',
    type: 'string',
    default: '',
    description: 'Local time of the daily briefing, e.g. 07:30, or off; empty keeps it',
  },
];

const displayOptions = { show: { operation: ['updatePreferences'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const preferences = await updateUserPreferences(pool, parameter(this, 'userId', itemIndex), {
    timeZone: parameter(this, 'timeZone', itemIndex),
    locale: parameter(this, 'locale', itemIndex),
    quietHours: parameter(this, 'quietHours', itemIndex),
    briefingTime: parameter(this, 'briefingTime', itemIndex),
  });
  return asData({ ok: true, preferences });
}
