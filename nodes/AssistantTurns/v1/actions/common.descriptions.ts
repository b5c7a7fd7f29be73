// Properties several Assistant Turns operations share.
import type { INodeProperties } from 'n8n-workflow';

export const turnId: INodeProperties = {
  displayName: 'Turn ID',
  name: 'turnId',
  type: 'number',
  required: true,
  default: 0,
  description: 'The turn Store Message returned',
};
