// Voice to Text: a checked Telegram message or webhook request goes on with its text; a voice note (Telegram's
// downloaded with the Telegram credential, the webhook's sent as base64 audio) is transcribed (the Assistant
// Transcription credential) and goes on with the transcript as its message. What cannot be transcribed (voice not
// set up, too large, a failing service) goes to output 1: for Telegram {chatId, text}, the one sentence to answer
// the user with; for the webhook {statusCode, body}, that sentence in the assistant's error envelope.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
  AssistantInputError,
  escapeHtml,
  httpError,
  transcriptionSettings,
  voiceAudioText,
  voiceNoteText,
  type AgentRequest,
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
    description: 'What Check Telegram Update or the Assistant Trigger (webhook) accepted',
  },
];

const displayOptions = { show: { operation: ['voiceToText'] } };

export const description = updateDisplayOptions(displayOptions, properties);

type ChannelRequest = TelegramRequest | AgentRequest;

const isWebhookRequest = (request: ChannelRequest): request is AgentRequest => request.channel === 'api';

/** How the webhook answers audio it could not turn into text. */
const WEBHOOK_VOICE_STATUS = { transcription_off: 503, no_words: 422, transcription_failed: 502 } as const;

function readRequest(value: unknown): ChannelRequest {
  let request: unknown = value;
  if (typeof value === 'string') {
    try {
      request = JSON.parse(value);
    } catch {
      throw new AssistantInputError('request', 'is not JSON');
    }
  }
  if (request && typeof request === 'object' && (request as AgentRequest).channel === 'api') {
    return request as AgentRequest;
  }
  if (!request || typeof request !== 'object' || typeof (request as TelegramRequest).chatId !== 'string') {
    throw new AssistantInputError(
      'request',
      'must be what Check Telegram Update ({chatId, message, …}) or the webhook ({channel: "api", …}) accepted',
    );
  }
  return request as TelegramRequest;
}

async function transcriptionOf(context: IExecuteFunctions, itemIndex: number) {
  return transcriptionSettings((await optionalCredentials(context, TRANSCRIPTION_CREDENTIAL, itemIndex)) ?? {});
}

/** The webhook's base64 audio: the request with its transcript as the message, or the answer to send instead. */
async function webhookVoiceText(
  context: IExecuteFunctions,
  request: AgentRequest & { voice: NonNullable<AgentRequest['voice']> },
  itemIndex: number,
): Promise<{ text: JsonObject } | { reply: JsonObject }> {
  const result = await voiceAudioText(request.voice, await transcriptionOf(context, itemIndex));
  if (!result.ok) {
    const status = WEBHOOK_VOICE_STATUS[result.reason];
    return { reply: httpError(status, result.reason, result.reply, 'voice') as unknown as JsonObject };
  }
  const { voice, ...rest } = request;
  const metadata = { ...rest.metadata, voice: { mime_type: voice.mimeType } };
  return { text: { ...rest, message: result.text, metadata } as unknown as JsonObject };
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
      if (isWebhookRequest(request)) {
        const outcome = await webhookVoiceText(this, { ...request, voice: request.voice }, itemIndex);
        if ('text' in outcome) texts.push({ json: outcome.text, pairedItem });
        else replies.push({ json: outcome.reply, pairedItem });
        continue;
      }
      const telegram = await this.getCredentials<{ accessToken: string; baseUrl?: string }>(
        TELEGRAM_CREDENTIAL,
        itemIndex,
      );
      const transcription = await transcriptionOf(this, itemIndex);
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
