// Assistant Tool Builder v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as approvalQuestion from './approvalQuestion.operation';
import * as checkAgentCall from './checkAgentCall.operation';
import * as decideTool from './decideTool.operation';
import * as deleteTool from './deleteTool.operation';
import * as disableTool from './disableTool.operation';
import * as draftTool from './draftTool.operation';
import * as listTools from './listTools.operation';
import * as markAnswer from './markAnswer.operation';
import * as toolCall from './toolCall.operation';

const API_OPERATIONS = ['approvalQuestion', 'decideTool', 'deleteTool', 'disableTool', 'draftTool'];

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Tool Builder' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [
    ...postgresCredentials.map((credential) => ({
      ...credential,
      displayOptions: { hide: { operation: ['checkAgentCall'] } },
    })),
    { name: 'n8nApi', required: true, displayOptions: { show: { operation: API_OPERATIONS } } },
  ],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Approval Question',
          value: 'approvalQuestion',
          action: 'Ask the operator to approve a tool',
          description: 'The question with the test output, or the failed test reported and the draft deleted',
        },
        {
          name: 'Check Agent Tool Call',
          value: 'checkAgentCall',
          action: 'Check a call of a main agent router tool',
          description:
            'The action and its arguments checked against the tool registry; a bad one named, with its field',
        },
        {
          name: 'Decide',
          value: 'decideTool',
          action: 'Activate or discard a drafted tool',
          description: "On the operator's yes the tool goes live; otherwise the draft is deleted",
        },
        {
          name: 'Delete Tool',
          value: 'deleteTool',
          action: 'Delete a built tool',
          description: 'Deletes the tool and its workflow',
        },
        {
          name: 'Disable Tool',
          value: 'disableTool',
          action: 'Disable a built tool',
          description: 'Switches a live tool off',
        },
        {
          name: 'Draft Tool',
          value: 'draftTool',
          action: 'Draft a tool from a spec',
          description: "Checks the spec and creates the tool's workflow, inactive",
        },
        {
          name: 'List Tools',
          value: 'listTools',
          action: 'List built tools',
          description: 'Every built tool with its status and inputs',
        },
        {
          name: 'Mark Answer',
          value: 'markAnswer',
          action: 'Mark the answer of a built tool as outside data',
          description: 'What the tool returned, as the model gets it: data, never instructions',
        },
        {
          name: 'Tool Call',
          value: 'toolCall',
          action: 'Prepare a call of a built tool',
          description: "A live tool's workflow and its checked inputs",
        },
      ],
      default: 'listTools',
    },
    ...approvalQuestion.description,
    ...checkAgentCall.description,
    ...decideTool.description,
    ...deleteTool.description,
    ...disableTool.description,
    ...draftTool.description,
    ...listTools.description,
    ...markAnswer.description,
    ...toolCall.description,
  ],
};
