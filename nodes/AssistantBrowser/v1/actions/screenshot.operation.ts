// Screenshot: the visible part of the page as a PNG, for the user (a photo on Telegram, a file with the webhook's
// reply); the model gets the page as text.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, deadlineProperty];

const displayOptions = { show: { operation: ['screenshot'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const shot = await taskStep(this, browser, user, itemIndex, (signal) => browser.session.screenshot({ user }, signal));
  return {
    ...stepResult(shot.page, 'Took a screenshot of the page; it goes to the user.'),
    png: shot.png,
    fileName: 'screenshot.png',
    mimeType: 'image/png',
  };
}
