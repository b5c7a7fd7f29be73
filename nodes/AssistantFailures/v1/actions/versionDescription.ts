// Assistant Failures v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as listFailures from './listFailures.operation';
import * as recordFailure from './recordFailure.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Failures' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [...postgresCredentials],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'List Failures',
          value: 'listFailures',
          action: 'List what failed',
          description: 'Failures since a time, in plain words',
        },
        {
          name: 'Record Failure',
          value: 'recordFailure',
          action: 'Record a failed execution',
          description: 'From the Error Trigger: the workflow, node, message (secrets scrubbed) and execution',
        },
      ],
      default: 'recordFailure',
    },
    ...recordFailure.description,
    ...listFailures.description,
  ],
};
