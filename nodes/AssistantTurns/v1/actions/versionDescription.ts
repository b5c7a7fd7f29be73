// Assistant Turns v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as attachFile from './attachFile.operation';
import * as awaitTurn from './awaitTurn.operation';
import * as failTurn from './failTurn.operation';
import * as finishTurn from './finishTurn.operation';
import * as getTurnState from './getTurnState.operation';
import * as receiveMessage from './receiveMessage.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Turns' },
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
        {
          name: 'Attach File',
          value: 'attachFile',
          action: 'Attach a file to a turn',
          description: 'Keep a file (a screenshot) with the turn; the webhook reply carries it',
        },
        {
          name: 'Get Turn State',
          value: 'getTurnState',
          action: 'Get the state of a turn',
          description: "A webhook caller's turn by its ID: answered with its reply, failed, or still pending",
        },
        {
          name: 'Mark Failed',
          value: 'failTurn',
          action: 'Mark a turn failed',
          description: 'Keep the message and record why no reply came',
        },
        {
          name: 'Store Message',
          value: 'receiveMessage',
          action: 'Store an incoming message',
          description: 'Before anything runs: a new pending turn, or the answer to a waiting question',
        },
        {
          name: 'Store Reply',
          value: 'finishTurn',
          action: 'Store the reply of a turn',
          description: 'The reply, verbatim; the turn is answered',
        },
        {
          name: 'Wait for Reply',
          value: 'awaitTurn',
          action: 'Wait for the reply of a turn',
          description: 'Until the turn is answered or failed, or the reply deadline passes',
        },
      ],
      default: 'receiveMessage',
    },
    ...failTurn.description,
    ...getTurnState.description,
    ...receiveMessage.description,
    ...attachFile.description,
    ...finishTurn.description,
    ...awaitTurn.description,
  ],
};
