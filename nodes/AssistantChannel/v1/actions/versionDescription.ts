// Assistant Channel v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { POSTGRES_CREDENTIAL } from '../../../shared/transport/postgres';
import { configureOutputs } from '../helpers/outputs';
import * as admitSender from './admitSender.operation';
import * as answerTurn from './answerTurn.operation';
import * as checkTelegramUpdate from './checkTelegramUpdate.operation';
import * as checkWebhookRequest from './checkWebhookRequest.operation';
import * as describeFailure from './describeFailure.operation';
import * as formatReply from './formatReply.operation';
import * as startTyping from './startTyping.operation';
import * as voiceToText from './voiceToText.operation';

// The database: the gate (admitSender), the owner check, and the turn Start Typing follows (allowedChats is only set on Check Telegram Update).
const usesDatabase = {
  show: { operation: ['admitSender', 'checkTelegramUpdate', 'startTyping'] },
  hide: { allowedChats: ['everyone'] },
};

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Channel' },
  inputs: [NodeConnectionTypes.Main],
  outputs: `={{(${configureOutputs})($parameter)}}`,
  credentials: [
    {
      name: checkWebhookRequest.HEADER_AUTH_CREDENTIAL,
      required: true,
      displayOptions: { show: { operation: ['checkWebhookRequest'] } },
    },
    { name: POSTGRES_CREDENTIAL, required: true, displayOptions: usesDatabase },
    // One entry per credential: n8n reads the first entry of a name when the node asks for it. Voice to Text
    // downloads with it only Telegram's voice notes (the webhook's come as audio); Start Typing always needs it.
    {
      name: voiceToText.TELEGRAM_CREDENTIAL,
      required: false,
      displayOptions: { show: { operation: ['voiceToText', 'startTyping'] } },
    },
    {
      name: voiceToText.TRANSCRIPTION_CREDENTIAL,
      required: false,
      displayOptions: { show: { operation: ['voiceToText'] } },
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
          name: 'Admit Sender',
          value: 'admitSender',
          action: 'Admit a sender by the channel DM policy',
          description:
            'The gate before anything else: the owner and the people the DM policy lets in pass; strangers get ' +
            'a refusal or the pairing reply, decided by code',
        },
        {
          name: 'Answer Turn',
          value: 'answerTurn',
          action: 'Answer a webhook caller with a turn',
          description: 'The reply, the failure with the turn ID, or 504 with the turn ID when the deadline passed',
        },
        {
          name: 'Check Telegram Update',
          value: 'checkTelegramUpdate',
          action: 'Check a telegram update',
          description: "Normalise a Telegram update and refuse chats other than the owner's",
        },
        {
          name: 'Check Webhook Request',
          value: 'checkWebhookRequest',
          action: 'Check a webhook request',
          description:
            'Check the API key header and validate {message, user_id, session_id?, metadata?}; ' +
            'rejections carry a JSON answer',
        },
        {
          name: 'Describe Failure',
          value: 'describeFailure',
          action: 'Describe a failure',
          description: 'Turn a failure into a JSON answer (502/504, 400/413, 503), or a short apology in chat',
        },
        {
          name: 'Format Reply',
          value: 'formatReply',
          action: 'Format the reply',
          description:
            'Build the webhook JSON {reply, user_id, session_id}, or Telegram messages split under 4,096 characters',
        },
        {
          name: 'Start Typing',
          value: 'startTyping',
          action: 'Show typing while a turn runs',
          description:
            'Telegram shows "typing…" (sendChatAction every 4 s) until the turn is answered, failed or asks, ' +
            'or its deadline passes; in the background, never holding up the turn',
        },
        {
          name: 'Voice to Text',
          value: 'voiceToText',
          action: 'Transcribe a voice message',
          description: 'A Telegram voice note becomes its transcript; text messages pass as they are',
        },
      ],
      default: 'checkWebhookRequest',
    },
    ...admitSender.description,
    ...answerTurn.description,
    ...checkWebhookRequest.description,
    ...checkTelegramUpdate.description,
    ...formatReply.description,
    ...describeFailure.description,
    ...startTyping.description,
    ...voiceToText.description,
  ],
};
