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
