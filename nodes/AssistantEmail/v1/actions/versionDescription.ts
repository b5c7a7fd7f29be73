// Assistant Email v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import { smtpCredentials } from '../../transport/credential';
import * as checkEmail from './checkEmail.operation';
import * as followTurn from './followTurn.operation';
import * as sendReply from './sendReply.operation';
import * as settleHeld from './settleHeld.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Email' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [...postgresCredentials, ...smtpCredentials],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Check Email',
          value: 'checkEmail',
          action: 'Check an email and its sender',
          description:
            "Parse the Email Trigger's email (thread, new words) and let its sender in by the email DM policy; " +
            'strangers and automatic mail are dropped unanswered',
        },
        {
          name: 'Follow Turn',
          value: 'followTurn',
          action: 'Email a turn s reply in its thread',
          description: 'Waits for the run: emails its question (answered by a reply), then its reply, in the thread',
        },
        {
          name: 'Send Reply',
          value: 'sendReply',
          action: 'Send a reply in the thread',
          description: 'One email in the thread (In-Reply-To, References), plain text with an HTML alternative',
        },
        {
          name: 'Settle Held Copies',
          value: 'settleHeld',
          action: 'Release or refuse copies held for other recipients',
          description: "A yes releases a reply's copies for others on the user's email to the outbox; a no fails them",
        },
      ],
      default: 'checkEmail',
    },
    ...checkEmail.description,
    ...followTurn.description,
    ...sendReply.description,
    ...settleHeld.description,
  ],
};
