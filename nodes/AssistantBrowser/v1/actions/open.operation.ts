// Open: starts the user's browser task (with their kept cookies) on a page, or goes to another page within it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  deadlineProperty,
  {
    displayName: 'URL',
    name: 'url',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'e.g. https://example.com/login',
    description: "The page to open (http or https); starts the user's task, or goes there within it",
  },
];

const displayOptions = { show: { operation: ['open'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const url = parameter(this, 'url', itemIndex) as string;
  return stepResult(
    await taskStep(this, browser, user, itemIndex, (signal) => browser.session.open({ user, url }, signal)),
  );
}
