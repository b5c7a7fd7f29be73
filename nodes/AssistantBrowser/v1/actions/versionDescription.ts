// Assistant Browser v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { POSTGRES_CREDENTIAL } from '../../../shared/transport/postgres';
import * as click from './click.operation';
import * as clickTarget from './clickTarget.operation';
import * as close from './close.operation';
import * as codeRequest from './codeRequest.operation';
import * as fill from './fill.operation';
import * as open from './open.operation';
import * as pauseTask from './pauseTask.operation';
import * as screenshot from './screenshot.operation';
import * as select from './select.operation';
import * as snapshot from './snapshot.operation';
import * as typeAnswer from './typeAnswer.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Browser' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [
    { name: fill.SITE_LOGINS_CREDENTIAL, required: false, displayOptions: { show: { operation: ['fill'] } } },
    { name: POSTGRES_CREDENTIAL, required: true, displayOptions: { show: { operation: ['fill', 'typeAnswer'] } } },
  ],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        { name: 'Click', value: 'click', action: 'Click an element', description: 'Click an element by its ref' },
        {
          name: 'Click Target',
          value: 'clickTarget',
          action: 'Look at what a click would send',
          description: 'The form a click on the element would send, without clicking',
        },
        { name: 'Close', value: 'close', action: 'Close the browser task', description: "End the user's task" },
        {
          name: 'Code Request',
          value: 'codeRequest',
          action: 'Decide whether to ask for a one time code',
          description: 'Whether the page asks for a one-time code, and what to ask the user',
        },
        {
          name: 'Fill',
          value: 'fill',
          action: 'Type into a field',
          description: 'Type a value, or a stored site login, into a field',
        },
        { name: 'Open', value: 'open', action: 'Open a page', description: "Start the user's task on a page" },
        {
          name: 'Pause Task',
          value: 'pauseTask',
          action: 'Pause the task for the user',
          description: "Stop the task's clock while it waits for the user",
        },
        {
          name: 'Screenshot',
          value: 'screenshot',
          action: 'Take a screenshot',
          description: 'The visible page as a PNG',
        },
        { name: 'Select', value: 'select', action: 'Choose an option', description: 'Choose an option by label' },
        {
          name: 'Snapshot',
          value: 'snapshot',
          action: 'Read the page',
          description: 'The page text and its numbered elements',
        },
        {
          name: 'Type Answer',
          value: 'typeAnswer',
          action: 'Type the user s code',
          description: "Wait for the user's code and type it into the field",
        },
      ],
      default: 'open',
    },
    ...open.description,
    ...snapshot.description,
    ...fill.description,
    ...click.description,
    ...clickTarget.description,
    ...select.description,
    ...screenshot.description,
    ...close.description,
    ...pauseTask.description,
    ...codeRequest.description,
    ...typeAnswer.description,
  ],
};
