// Pause Task: the user's task waits for the user (a code, an answer): its time limit does not run meanwhile.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { taskStep } from '../helpers/taskStep';
import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, deadlineProperty];

const displayOptions = { show: { operation: ['pauseTask'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  return {
    waiting: true,
    task: await taskStep(this, browser, user, itemIndex, (signal) => browser.session.wait({ user }, signal)),
  } as unknown as IDataObject;
}
