// Parameters several operations of Assistant Memory v1 share.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { MEMORY_KINDS } from 'assistant-core';

export const kindOptions: INodePropertyOptions[] = MEMORY_KINDS.map((kind) => ({
  name: kind[0].toUpperCase() + kind.slice(1),
  value: kind,
}));

export const memoryId: INodeProperties = {
  displayName: 'Memory ID',
  name: 'memoryId',
  type: 'number',
  required: true,
  default: 0,
};

export const limit: INodeProperties = {
  displayName: 'Limit',
  name: 'limit',
  type: 'number',
  // The domain caps recall at 100; saved workflows rely on the default of 10, so it stays.
  // eslint-disable-next-line n8n-nodes-base/node-param-type-options-max-value-present
  typeOptions: { minValue: 1, maxValue: 100 },
  // eslint-disable-next-line n8n-nodes-base/node-param-default-wrong-for-limit
  default: 10,
  description: 'Max number of results to return',
};
