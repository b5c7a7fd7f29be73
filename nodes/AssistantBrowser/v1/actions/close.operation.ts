// Close: ends the user's browser task; its cookies stay on disk for the next one.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { browserCall } from '../../../shared/transport/browserClient';
import { userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty];

const displayOptions = { show: { operation: ['close'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const { closed } = await browserCall(() => browser.session.close({ user }));
  return {
    closed,
    result: closed ? 'Closed the browser; the sign-ins are kept for next time.' : 'No browser task was open.',
  };
}
