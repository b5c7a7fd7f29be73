// Parameters several operations of Assistant Knowledge Graph v1 share.
import type { INodeProperties } from 'n8n-workflow';

export const name: INodeProperties = {
  displayName: 'Name',
  name: 'name',
  type: 'string',
  required: true,
  default: '',
  description: 'The entity name; a first name finds the closest full name',
};

export const validTo: INodeProperties = {
  displayName: 'Valid To',
  name: 'validTo',
  type: 'string',
  default: '',
  description: 'ISO 8601 date-time; empty for "still valid" (End Relation: empty means now)',
};
