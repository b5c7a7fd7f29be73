// Check URL: whether the outbound guard lets this URL through (the allow list, private addresses, the n8n API and the
// judge kept out). Passes the item on with the checked URL, or fails naming the reason. A built tool runs it before
// its HTTP Request, at every run.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { OutboundRefusedError } from 'assistant-core';
import type { WebTools } from 'assistant-core/web';

import { parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'URL',
    name: 'url',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'e.g. https://api.example.com/weather?city=Paris',
    description: 'The URL about to be called',
  },
];

const displayOptions = { show: { operation: ['checkUrl'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, tools: WebTools, itemIndex: number): Promise<IDataObject> {
  const url = String(parameter(this, 'url', itemIndex) ?? '');
  const decision = await tools.guard.check(url);
  if (!decision.allowed) throw new OutboundRefusedError(decision.reason);
  return { ...(this.getInputData()[itemIndex]?.json ?? {}), url: decision.url.href };
}
