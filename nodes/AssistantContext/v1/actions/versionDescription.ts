// Assistant Context v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import { EMBEDDINGS_CREDENTIAL } from '../../../shared/transport/embeddings';
import * as checkTelegramChat from './checkTelegramChat.operation';
import * as forgetEverything from './forgetEverything.operation';
import * as forgetQuestion from './forgetQuestion.operation';
import * as getInstanceSettings from './getInstanceSettings.operation';
import * as getSettings from './getSettings.operation';
import * as linkIdentity from './linkIdentity.operation';
import * as loadContext from './loadContext.operation';
import * as purgeExecutions from './purgeExecutions.operation';
import * as resolveIdentity from './resolveIdentity.operation';
import * as spendingReport from './spendingReport.operation';
import * as storeTurn from './storeTurn.operation';
import * as updateInstanceSettings from './updateInstanceSettings.operation';
import * as updateSettings from './updateSettings.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Context' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  usableAsTool: true,
  credentials: [
    ...postgresCredentials,
    { name: 'n8nApi', required: false, displayOptions: { show: { operation: ['purgeExecutions'] } } },
    {
      name: EMBEDDINGS_CREDENTIAL,
      required: false,
      displayOptions: { show: { operation: ['loadContext'] } },
    },
  ],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Check Telegram Chat',
          value: 'checkTelegramChat',
          action: 'Check a telegram chat is the owner',
          description: "Whether a chat is the bot owner's (stores nothing)",
        },
        {
          name: 'Forget Everything',
          value: 'forgetEverything',
          action: 'Forget everything about a user',
          description:
            'On their yes to the forget question: delete memories, graph, tasks, turns, pending questions and settings; keep the identities',
        },
        {
          name: 'Get Forget Question',
          value: 'forgetQuestion',
          action: 'Get the question that confirms forgetting everything',
          description: 'What the user is asked before Forget Everything',
        },
        {
          name: 'Get Instance Settings',
          value: 'getInstanceSettings',
          action: 'Get the instance settings',
          description: "Defaults for every user and the owner's Telegram chat ID",
        },
        {
          name: 'Get Settings',
          value: 'getSettings',
          action: 'Get the user settings',
          description: 'The settings in effect for a user',
        },
        {
          name: 'Link Identity',
          value: 'linkIdentity',
          action: 'Link an identity to a user',
          description: 'Let another identity (e.g. a Telegram chat) reach an existing user',
        },
        {
          name: 'Load Context',
          value: 'loadContext',
          action: 'Load the context for a message',
          description: 'Personality, recent turns within a token budget, relevant memories, a system prompt',
        },
        {
          name: 'Purge Saved Executions',
          value: 'purgeExecutions',
          action: 'Purge the saved executions of a user',
          description: "Delete n8n's saved executions that hold the user's data (needs the n8n API credential)",
        },
        {
          name: 'Resolve Identity',
          value: 'resolveIdentity',
          action: 'Resolve an identity to a user',
          description: 'Telegram chat ID or webhook user_id → the user ID (created on first contact)',
        },
        {
          name: 'Spending Report',
          value: 'spendingReport',
          action: 'Report what the model calls cost',
          description: "Today's, this week's or this month's model costs by job and model, and the spending caps",
        },
        {
          name: 'Store Turn',
          value: 'storeTurn',
          action: 'Store a conversation turn',
          description: "The user's message and the reply, verbatim",
        },
        { name: 'Update Instance Settings', value: 'updateInstanceSettings', action: 'Update the instance settings' },
        { name: 'Update Settings', value: 'updateSettings', action: 'Update the user settings' },
      ],
      default: 'loadContext',
    },
    ...checkTelegramChat.description,
    ...forgetEverything.description,
    ...forgetQuestion.description,
    ...getInstanceSettings.description,
    ...getSettings.description,
    ...linkIdentity.description,
    ...loadContext.description,
    ...purgeExecutions.description,
    ...resolveIdentity.description,
    ...spendingReport.description,
    ...storeTurn.description,
    ...updateInstanceSettings.description,
    ...updateSettings.description,
  ],
};
