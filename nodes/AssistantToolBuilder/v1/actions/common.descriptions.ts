// Properties the Assistant Tool Builder operations share.
import type { INodeProperties } from 'n8n-workflow';

export const toolName: INodeProperties = {
  displayName: 'Tool Name',
  name: 'name',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. city_weather',
};

export const userId: INodeProperties = {
  displayName: 'User ID',
  name: 'userId',
  type: 'string',
  required: true,
  default: '',
  description: 'The user asking; only the operator may build, disable or delete tools',
};
