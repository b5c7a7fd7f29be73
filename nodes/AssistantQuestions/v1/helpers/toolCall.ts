// The tool call the approval gate decides about: the tool's name and its inputs, as the tool workflow got them.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parameter } from '../../../shared/helpers/parameters';

export const toolCallProperties: INodeProperties[] = [
  {
    displayName: 'Tool',
    name: 'tool',
    type: 'string',
    required: true,
    default: '',
    description: "The agent's tool being called, e.g. delete_tool",
  },
  {
    displayName: 'Tool Inputs',
    name: 'toolInputs',
    type: 'json',
    default: '{}',
    description: "The tool workflow's inputs, as it was called",
  },
];

/** The call's inputs as an object (a JSON text is parsed); anything else names the parameter. */
export function callObject(context: IExecuteFunctions, itemIndex: number): IDataObject {
  const raw: unknown = parameter(context, 'toolInputs', itemIndex);
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      value = undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new NodeOperationError(context.getNode(), "Tool Inputs must be the tool workflow's inputs as an object", {
      itemIndex,
    });
  }
  return value as IDataObject;
}
