// Reading parameters for the assistant-core domain, which validates them itself.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';

/** A parameter read leniently: missing → undefined, so the domain decides what is required. */
export function parameter(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
  return context.getNodeParameter(name, itemIndex, undefined);
}

/** Domain objects are plain JSON already; this narrows the type for n8n. */
export const asData = (value: object): IDataObject => value as unknown as IDataObject;

/** The `now` parameter (ISO 8601; empty → the current time): scheduling takes its clock from the workflow. */
export function nowParameter(context: IExecuteFunctions, itemIndex: number): Date {
  const value = parameter(context, 'now', itemIndex);
  if (value === undefined || value === null || value === '') return new Date();
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) {
    throw new AssistantInputError('now', `must be an ISO 8601 date-time, not ${JSON.stringify(value)}`);
  }
  return date;
}

/** The clock parameter of scheduling operations. */
export const nowProperty: INodeProperties = {
  displayName: 'Now',
  name: 'now',
  type: 'string',
  default: '={{ $now.toISO() }}',
  description: 'The time the operation takes as now (ISO 8601); the current time unless a test or replay sets it',
};
