// Assistant Questions v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as ask from './ask.operation';
import * as decideApproval from './decideApproval.operation';
import * as setMessageId from './setMessageId.operation';
import * as settleApproval from './settleApproval.operation';
import * as waitForAnswer from './waitForAnswer.operation';
import * as weighApproval from './weighApproval.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Questions' },
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
        { name: 'Ask', value: 'ask', action: 'Ask the user', description: 'Record a question for the user' },
        {
          name: 'Decide Approval',
          value: 'decideApproval',
          action: 'Decide whether a tool call needs approval',
          description: "Run it, ask first, or refuse it, by the tool's approval rule",
        },
        {
          name: 'Remember Message ID',
          value: 'setMessageId',
          action: 'Remember the question s message',
          description: 'So a reply to that message answers this question',
        },
        {
          name: 'Settle Approval',
          value: 'settleApproval',
          action: 'Settle a tool call s approval',
          description: "Granted only on the user's yes to the question about this very call",
        },
        {
          name: 'Wait for Answer',
          value: 'waitForAnswer',
          action: 'Wait for the answer',
          description: 'Until the user answers or the question expires',
        },
        {
          name: 'Weigh Approval',
          value: 'weighApproval',
          action: 'Weigh the judge s answer about a tool call',
          description: "Under a tool's judge rule: ask the user when the Judge's probability reaches the threshold",
        },
      ],
      default: 'ask',
    },
    ...ask.description,
    ...decideApproval.description,
    ...settleApproval.description,
    ...setMessageId.description,
    ...waitForAnswer.description,
    ...weighApproval.description,
  ],
};
