// Snapshot: the page of the user's task as it is now: its text and numbered elements.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, deadlineProperty];

const displayOptions = { show: { operation: ['snapshot'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  return stepResult(
    await taskStep(this, browser, user, itemIndex, (signal) => browser.session.snapshot({ user }, signal)),
  );
}
