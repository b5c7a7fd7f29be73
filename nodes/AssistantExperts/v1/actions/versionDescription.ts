// Assistant Experts v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as expertSettings from './expertSettings.operation';
import * as setExpertModel from './setExpertModel.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Experts' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: postgresCredentials,
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Expert Settings',
          value: 'expertSettings',
          action: 'Get an expert s settings',
          description: 'The model an expert runs with',
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
    ...expertSettings.description,
    ...setExpertModel.description,
  ],
};
