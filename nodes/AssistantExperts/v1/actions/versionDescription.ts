// Assistant Experts v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as approvalQuestion from './approvalQuestion.operation';
import * as expertSettings from './expertSettings.operation';
import * as expertWorkflow from './expertWorkflow.operation';
import * as installExpert from './installExpert.operation';
import * as listExperts from './listExperts.operation';
import * as removeExpert from './removeExpert.operation';
import * as setExpertModel from './setExpertModel.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Experts' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [
    ...postgresCredentials,
    { name: 'n8nApi', required: true, displayOptions: { show: { operation: ['installExpert', 'removeExpert'] } } },
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
          action: 'Ask the operator to approve an expert',
          description: 'What the operator is asked before a catalogue expert is installed',
        },
        {
          name: 'Expert Settings',
          value: 'expertSettings',
          action: 'Get an expert s settings',
          description: 'The model an expert runs with',
        },
        {
          name: 'Expert Workflow',
          value: 'expertWorkflow',
          action: 'Get an expert s workflow',
          description: 'The workflow that runs an installed expert',
        },
        {
          name: 'Install Expert',
          value: 'installExpert',
          action: 'Install an approved expert',
          description: "Creates and publishes a catalogue expert's workflow after the operator's yes",
        },
        {
          name: 'List Experts',
          value: 'listExperts',
          action: 'List experts',
          description: 'The installed experts and the catalogue',
        },
        {
          name: 'Remove Expert',
          value: 'removeExpert',
          action: 'Remove an expert',
          description: "Deletes an installed catalogue expert's workflow",
        },
        {
          name: 'Set Expert Model',
          value: 'setExpertModel',
          action: 'Set an expert s model',
          description: 'Its own model, or the chat model setting',
        },
      ],
      default: 'expertSettings',
    },
    ...approvalQuestion.description,
    ...expertSettings.description,
    ...expertWorkflow.description,
    ...installExpert.description,
    ...listExperts.description,
    ...removeExpert.description,
    ...setExpertModel.description,
  ],
};
