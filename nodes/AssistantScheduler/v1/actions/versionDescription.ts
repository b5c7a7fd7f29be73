// Assistant Scheduler v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as findNudges from './findNudges.operation';
import * as finishActionRun from './finishActionRun.operation';
import * as finishTick from './finishTick.operation';
import * as gatherBriefing from './gatherBriefing.operation';
import * as startTick from './startTick.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Scheduler' },
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
          name: 'Find Nudges',
          value: 'findNudges',
          action: 'Find what to nudge users about',
          description: 'Overdue and urgent tasks outside cooldown and quiet hours: one item per user, none when idle',
        },
        {
          name: 'Finish Action Run',
          value: 'finishActionRun',
          action: 'Record how a recurring action run ended',
          description: 'Succeeded or failed, with the turn it ran as',
        },
        {
          name: 'Finish Tick',
          value: 'finishTick',
          action: 'Close a tick s ledger row',
          description: 'End time and what its delivery did',
        },
        {
          name: 'Gather Briefing',
          value: 'gatherBriefing',
          action: 'Gather a user s briefing',
          description: "Today's tasks and reminders and overdue tasks, with a plain draft",
        },
        {
          name: 'Start Tick',
          value: 'startTick',
          action: 'Start a minute tick',
          description: 'Ledger row, due reminders into the outbox, and what else is due',
        },
      ],
      default: 'startTick',
    },
    ...startTick.description,
    ...findNudges.description,
    ...gatherBriefing.description,
    ...finishActionRun.description,
    ...finishTick.description,
  ],
};
