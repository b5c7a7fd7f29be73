// Select: chooses an option of a select element by its label or value.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { requireRef } from '../helpers/ref';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  deadlineProperty,
  refProperty,
  {
    displayName: 'Option',
    name: 'option',
    type: 'string',
    required: true,
    default: '',
    description: 'The option to choose, by its label or value',
  },
];

const displayOptions = { show: { operation: ['select'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  const option = parameter(this, 'option', itemIndex) as string;
  return stepResult(
    await taskStep(this, browser, user, itemIndex, (signal) => browser.session.select({ user, ref, option }, signal)),
    `Chose "${option}" in [${ref}].`,
  );
}
