// Assistant Checks v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import { SYSTEM_ONE_CREDENTIAL } from '../../../shared/transport/systemOneClient';
import * as addCheck from './addCheck.operation';
import * as changeCheck from './changeCheck.operation';
import * as checkHistory from './checkHistory.operation';
import * as finishCheckRun from './finishCheckRun.operation';
import * as listChecks from './listChecks.operation';
import * as runCheck from './runCheck.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Checks' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [
    ...postgresCredentials,
    // Asked only to see that a judge answers when a check with Notify When is added.
    { name: SYSTEM_ONE_CREDENTIAL, required: false, displayOptions: { show: { operation: ['addCheck'] } } },
  ],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Add Check',
          value: 'addCheck',
          action: 'Add a check',
          description: 'Watch a page, feed, search or JSON value on a schedule',
        },
        {
          name: 'Change Check',
          value: 'changeCheck',
          action: 'Pause resume or delete a check',
          description: 'Pause, resume or delete',
        },
        {
          name: 'Check History',
          value: 'checkHistory',
          action: 'List the runs of a check',
          description: 'Runs, newest first, with what they found',
        },
        {
          name: 'Finish Check Run',
          value: 'finishCheckRun',
          action: 'Finish a check run',
          description: "Notify or stay silent, with the Judge's probability when gated",
        },
        {
          name: 'List Checks',
          value: 'listChecks',
          action: 'List checks',
          description: "The user's checks and their state",
        },
        {
          name: 'Run Check',
          value: 'runCheck',
          action: 'Run a check',
          description: 'Fetch, compare with the stored state, record',
        },
      ],
      default: 'addCheck',
    },
    ...addCheck.description,
    ...listChecks.description,
    ...changeCheck.description,
    ...checkHistory.description,
    ...runCheck.description,
    ...finishCheckRun.description,
  ],
};
