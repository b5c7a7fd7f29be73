// Assistant Tasks v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as complete from './complete.operation';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as list from './list.operation';
import * as update from './update.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Tasks' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  usableAsTool: true,
  credentials: postgresCredentials,
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        { name: 'Complete', value: 'complete', action: 'Complete a task' },
        { name: 'Create', value: 'create', action: 'Create a task' },
        { name: 'Delete', value: 'delete', action: 'Delete a task' },
        { name: 'Get', value: 'get', action: 'Get a task' },
        {
          name: 'List',
          value: 'list',
          action: 'List tasks',
          description: 'Filter by status, priority, tag, overdue or due today',
        },
        { name: 'Update', value: 'update', action: 'Update a task' },
      ],
      default: 'list',
    },
    ...complete.description,
    ...create.description,
    ...del.description,
    ...get.description,
    ...list.description,
    ...update.description,
  ],
};
