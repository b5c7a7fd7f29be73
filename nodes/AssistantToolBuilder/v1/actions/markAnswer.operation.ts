// Mark Answer: a built tool's answer (what a third-party API said) as the model gets it: marked as outside data
// (safety/untrusted.ts), so instructions in it are not taken as the user's or the assistant's.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { markUntrusted } from 'assistant-core';

import { parameter } from '../../../shared/helpers/parameters';
import { toolName } from './common.descriptions';

const properties: INodeProperties[] = [
  toolName,
  {
    displayName: 'Answer',
    name: 'answer',
    type: 'json',
    default: '={{ $json }}',
    description: 'What the built tool returned',
  },
];

const displayOptions = { show: { operation: ['markAnswer'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, _pool: unknown, itemIndex: number): Promise<IDataObject> {
  const name = String(parameter(this, 'name', itemIndex) ?? '').trim() || 'a built tool';
  const answer = parameter(this, 'answer', itemIndex);
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer ?? null);
  return { result: markUntrusted(`the built tool "${name}"`, text) };
}
