// Click: clicks an element of the page by its ref, waits for what it loads, and returns the page as it is then.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { requireRef } from '../helpers/ref';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, refProperty, deadlineProperty];

const displayOptions = { show: { operation: ['click'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  return stepResult(
    await taskStep(this, browser, user, itemIndex, (signal) => browser.session.click({ user, ref }, signal)),
    `Clicked [${ref}].`,
  );
}
