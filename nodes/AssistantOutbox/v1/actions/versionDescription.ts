// Assistant Outbox v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import { deliveryCredentials } from '../../transport/send';
import * as deliverDue from './deliverDue.operation';
import * as listOutbox from './listOutbox.operation';
import * as queueMessage from './queueMessage.operation';
import * as recordReceipts from './recordReceipts.operation';
import * as setCallbackUrl from './setCallbackUrl.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Outbox' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  credentials: [...postgresCredentials, ...deliveryCredentials],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Deliver Due Messages',
          value: 'deliverDue',
          action: 'Deliver the messages due now',
          description: 'Send on Telegram or to callbacks; retries back off; outcomes recorded',
        },
        {
          name: 'List Outbox',
          value: 'listOutbox',
          action: 'List a webhook user s messages',
          description: 'For clients that pull: messages after an ID',
        },
        {
          name: 'Queue Message',
          value: 'queueMessage',
          action: 'Queue a proactive message',
          description: "Into the outbox for the user's channel (once per dedupe key)",
        },
        {
          name: 'Record Receipts',
          value: 'recordReceipts',
          action: 'Record that a pulling client showed messages',
          description: 'The web chat showed these messages: each stored one becomes delivered on it',
        },
        {
          name: 'Set Callback URL',
          value: 'setCallbackUrl',
          action: 'Store a webhook user s callback url',
          description: 'Where their proactive messages are POSTed (empty: keep)',
        },
      ],
      default: 'queueMessage',
    },
    ...queueMessage.description,
    ...deliverDue.description,
    ...listOutbox.description,
    ...recordReceipts.description,
    ...setCallbackUrl.description,
  ],
};
