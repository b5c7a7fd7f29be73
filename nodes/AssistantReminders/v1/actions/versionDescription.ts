// Assistant Reminders v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as cancelReminder from './cancelReminder.operation';
import * as changeAction from './changeAction.operation';
import * as listActions from './listActions.operation';
import * as listReminders from './listReminders.operation';
import * as scheduleAction from './scheduleAction.operation';
import * as setReminder from './setReminder.operation';
import * as updatePreferences from './updatePreferences.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Reminders' },
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
          name: 'Cancel Reminder',
          value: 'cancelReminder',
          action: 'Cancel a reminder',
          description: 'A scheduled reminder will not fire',
        },
        {
          name: 'Change Action',
          value: 'changeAction',
          action: 'Pause resume or delete a recurring action',
          description: 'Pause, resume or delete',
        },
        {
          name: 'List Actions',
          value: 'listActions',
          action: 'List recurring actions',
          description: "The user's recurring actions and their next runs",
        },
        {
          name: 'List Reminders',
          value: 'listReminders',
          action: 'List reminders',
          description: 'Scheduled reminders, soonest first',
        },
        {
          name: 'Schedule Action',
          value: 'scheduleAction',
          action: 'Schedule a recurring action',
          description: "An instruction the agent runs on a schedule in the user's zone",
        },
        {
          name: 'Set Reminder',
          value: 'setReminder',
          action: 'Set a reminder',
          description: "Read `when` in the user's zone and schedule it",
        },
        {
          name: 'Update Preferences',
          value: 'updatePreferences',
          action: 'Update time zone quiet hours or briefing time',
          description: "The user's time zone, quiet hours and daily briefing time",
        },
      ],
      default: 'setReminder',
    },
    ...setReminder.description,
    ...listReminders.description,
    ...cancelReminder.description,
    ...scheduleAction.description,
    ...listActions.description,
    ...changeAction.description,
    ...updatePreferences.description,
  ],
};
