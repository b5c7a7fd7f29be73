// Check Agent Tool Call: a main-agent router's call (issue 41) checked against the tool registry before the router
// workflow dispatches it: the action one of its group's tools, args an object with that tool's arguments (converted,
// optional ones filled). A bad action or argument fails the item naming the action and the field; the router sends it
// to its error output, which answers the model with that sentence. Needs no database.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { checkToolCall, TOOL_GROUPS, type ToolGroup } from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Group',
    name: 'group',
    type: 'options',
    options: TOOL_GROUPS.map((group) => ({ name: group, value: group })),
    default: 'memory and people',
    description: "The tool registry's group whose router this is",
  },
  {
    displayName: 'Action',
    name: 'action',
    type: 'string',
    default: '={{ $json.action }}',
    description: 'The tool the model asked for (one of the group)',
  },
  {
    displayName: 'Arguments',
    name: 'args',
    type: 'string',
    default: '={{ $json.args }}',
    description: "The tool's arguments the model gave: a JSON object's text (or the object), empty for none",
  },
];

const displayOptions = { show: { operation: ['checkAgentCall'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const group = parameter(this, 'group', itemIndex) as ToolGroup;
  return asData(checkToolCall(group, parameter(this, 'action', itemIndex), parameter(this, 'args', itemIndex)));
}
