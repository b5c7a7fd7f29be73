// Properties the Assistant Experts operations share.
import type { INodeProperties } from 'n8n-workflow';

export const expertId: INodeProperties = {
  displayName: 'Expert ID',
  name: 'expertId',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. researcher',
};

export const userId: INodeProperties = {
  displayName: 'User ID',
  name: 'userId',
  type: 'string',
  required: true,
  default: '',
  description: 'The user asking; only the operator may install or remove experts',
};
