// Code Request: whether the page a step returned asks for a one-time code, and the question for the user (after a
// limit of codes in one task it stops asking and says so).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';
import { codeRequest, type PageForCode } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Page',
    name: 'page',
    type: 'json',
    required: true,
    default: '={{ $json }}',
    description: 'What a browser step returned ({URL, codeField, codesTyped})',
  },
];

const displayOptions = { show: { operation: ['codeRequest'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function readPage(value: unknown): PageForCode {
  const page = (typeof value === 'string' ? JSON.parse(value) : value) as Partial<PageForCode> | null;
  if (!page || typeof page !== 'object' || typeof page.url !== 'string' || typeof page.codesTyped !== 'number') {
    throw new AssistantInputError('page', 'must be what a browser step returned ({url, codeField, codesTyped})');
  }
  return { url: page.url, codeField: page.codeField ?? null, codesTyped: page.codesTyped };
}

export async function execute(this: IExecuteFunctions, _browser: unknown, itemIndex: number): Promise<IDataObject> {
  let page: PageForCode;
  try {
    page = readPage(parameter(this, 'page', itemIndex));
  } catch (error) {
    if (error instanceof SyntaxError) throw new AssistantInputError('page', 'is not JSON');
    throw error;
  }
  return codeRequest(page) as unknown as IDataObject;
}
