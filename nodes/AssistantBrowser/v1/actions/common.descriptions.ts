// Parameters several operations of Assistant Browser v1 share.
import type { INodeProperties } from 'n8n-workflow';

export { userIdProperty } from '../../../shared/helpers/descriptions';

export const refProperty: INodeProperties = {
  displayName: 'Element Ref',
  name: 'ref',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. 3',
  description: 'The number of the element in the last page snapshot',
};
