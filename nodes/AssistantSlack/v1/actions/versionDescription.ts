// Assistant Slack v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import { slackCredentials } from '../../transport/credential';
import * as checkSender from './checkSender.operation';
import * as followTurn from './followTurn.operation';
import * as sendMessage from './sendMessage.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Slack' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [...postgresCredentials, ...slackCredentials],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Check Sender',
          value: 'checkSender',
          action: 'Check who is talking on slack',
          description: "The owner's Slack user ID is let in (as the owner's user); anyone else gets a refusal",
        },
        {
          name: 'Follow Turn',
          value: 'followTurn',
          action: 'Post a turn s reply on slack',
          description: 'Waits for the run: posts its question with buttons, then its reply, where the user wrote',
        },
        {
          name: 'Send Message',
          value: 'sendMessage',
          action: 'Send a message on slack',
          description: 'Posts (chat.postMessage) to a DM, a channel or a thread, mrkdwn escaped, in parts',
        },
      ],
      default: 'checkSender',
    },
    ...checkSender.description,
    ...followTurn.description,
    ...sendMessage.description,
  ],
};
