// Parameters both modes of Judge v1 show.
import type { INodeProperties } from 'n8n-workflow';

export const requestOptions: INodeProperties = {
  displayName: 'Options',
  name: 'requestOptions',
  type: 'collection',
  placeholder: 'Add Option',
  default: {},
  options: [
    {
      displayName: 'Timeout (Ms)',
      name: 'timeout',
      type: 'number',
      typeOptions: { minValue: 1 },
      default: 60000,
      description: 'How long to wait for the judge',
    },
  ],
};
