// Voice to Text: a checked Telegram message goes on with its text; a voice note is downloaded (the Telegram
// credential) and transcribed (the Assistant Transcription credential), and goes on with the transcript as its
// message. What cannot be transcribed (voice not set up, too large, a failing service) goes to output 1 as
// {chatId, text}: the one sentence to answer the user with.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
  AssistantInputError,
  escapeHtml,
  transcriptionSettings,
  voiceNoteText,
  type TelegramRequest,
} from 'assistant-core';

import { failedItem } from '../../../shared/helpers/errors';

export const TELEGRAM_CREDENTIAL = 'telegramApi';
export const TRANSCRIPTION_CREDENTIAL = 'assistantTranscriptionApi';

const properties: INodeProperties[] = [
  {
    displayName: 'Message',
    name: 'request',
    type: 'json',
    required: true,
    default: '={{ $json }}',
    description: 'What Check Telegram Update accepted',
  },
];

const displayOptions = { show: { operation: ['voiceToText'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function readRequest(value: unknown): TelegramRequest {
  let request: unknown = value;
  if (typeof value === 'string') {
    try {
      request = JSON.parse(value);
    } catch {
      throw new AssistantInputError('request', 'is not JSON');
    }
  }
  if (!request || typeof request !== 'object' || typeof (request as TelegramRequest).chatId !== 'string') {
    throw new AssistantInputError('request', 'must be what Check Telegram Update accepted ({chatId, message, …})');
  }
  return request as TelegramRequest;
}

async function optionalCredentials(context: IExecuteFunctions, type: string, itemIndex: number) {
  if (!context.getNode().credentials?.[type]) return undefined;
  return await context.getCredentials<Record<string, unknown>>(type, itemIndex);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const texts: INodeExecutionData[] = [];
  const replies: INodeExecutionData[] = [];
  const items = this.getInputData();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const pairedItem = { item: itemIndex };
    try {
      const request = readRequest(this.getNodeParameter('request', itemIndex, undefined));
      if (!request.voice) {
        texts.push({ json: request as unknown as JsonObject, pairedItem });
        continue;
      }
      const telegram = await this.getCredentials<{ accessToken: string; baseUrl?: string }>(
        TELEGRAM_CREDENTIAL,
        itemIndex,
      );
      const transcription = transcriptionSettings(
        (await optionalCredentials(this, TRANSCRIPTION_CREDENTIAL, itemIndex)) ?? {},
      );
      const result = await voiceNoteText(
        request.voice,
        { baseUrl: telegram.baseUrl || 'https://api.telegram.org', token: telegram.accessToken },
        transcription,
      );
      if (result.ok) {
        const { voice, ...rest } = request;
        const metadata = { ...rest.metadata, voice: { durationSeconds: voice.durationSeconds ?? null } };
        texts.push({ json: { ...rest, message: result.text, metadata } as unknown as JsonObject, pairedItem });
      } else {
        replies.push({
          json: { chatId: request.chatId, text: escapeHtml(result.reply), parseMode: 'HTML' },
          pairedItem,
        });
      }
    } catch (error) {
      texts.push(failedItem(this, error, itemIndex));
    }
  }
  return [texts, replies];
}
