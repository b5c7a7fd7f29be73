// Voice to Text through the fake IExecuteFunctions, against loopback fakes of the Telegram Bot API and an
// OpenAI-compatible transcription endpoint: text passes as it is; a voice note goes on as its transcript; without
// the transcription credential the user gets one sentence (output 1), paired to the item. The webhook's voice
// (base64 audio, no Telegram credential) goes on as its transcript, or as the error envelope naming why not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AssistantChannel } from '../../../nodes/AssistantChannel/AssistantChannel.node';
import { runNode } from '../helpers/executeFunctions';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../../fakes/openai-chat';
import { speak } from '../../fakes/speech';
import { startTelegramBotApiFake, type TelegramBotApiFake } from '../../fakes/telegram-bot-api';

const TOKEN = '7000000010:voice-node-token';
const KEY = 'sk-voice-node-key';
let telegram: TelegramBotApiFake;
let speech: OpenAiChatFake;
/** 'buy oat milk', spoken once: opusenc picks a random stream serial, so each call is other bytes. */
let spoken: Buffer;

beforeAll(async () => {
  telegram = await startTelegramBotApiFake({ token: TOKEN });
  speech = await startOpenAiChatFake({ apiKey: KEY });
  const audio = speak('buy oat milk');
  spoken = audio;
  await new OpenAiChatFakeControl(speech.url).addTranscript(audio, 'buy oat milk');
  await fetch(`${telegram.url}/__files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      file_id: 'n1',
      base64: audio.toString('base64'),
      file_path: 'v/n1.oga',
    }),
  });
});
afterAll(async () => {
  await telegram?.close();
  await speech?.close();
});

const request = (extra: Record<string, unknown>) => ({
  json: {
    channel: 'telegram',
    externalId: '7',
    chatId: '7',
    message: '',
    sessionId: 'telegram:7',
    metadata: {},
    ...extra,
  },
});
const voice = { fileId: 'n1', mimeType: 'audio/ogg', fileSize: 12, durationSeconds: 2 };

async function run(items: Array<{ json: Record<string, unknown> }>, transcription: boolean) {
  return runNode(new AssistantChannel(), {
    parameters: items.map((item) => ({ operation: 'voiceToText', request: item.json })),
    items: items as never,
    credentials: {
      telegramApi: { accessToken: TOKEN, baseUrl: telegram.url },
      assistantTranscriptionApi: { baseUrl: `${speech.url}/v1`, apiKey: KEY, model: 'whisper-1' },
    },
    nodeCredentials: transcription
      ? {
          telegramApi: { id: 'asstTelegramBot1', name: 'Assistant Telegram Bot' },
          assistantTranscriptionApi: { id: 'asstTranscribe01', name: 'Assistant Transcription' },
        }
      : { telegramApi: { id: 'asstTelegramBot1', name: 'Assistant Telegram Bot' } },
  });
}

describe('Voice to Text', () => {
  it('passes text on, and a voice note as its transcript (the note itself left out)', async () => {
    const [texts, replies] = await run([request({ message: 'hello' }), request({ voice })], true);
    expect(replies).toEqual([]);
    expect(texts.map((item) => [item.json.message, item.pairedItem])).toEqual([
      ['hello', { item: 0 }],
      ['buy oat milk', { item: 1 }],
    ]);
    expect(texts[1].json).not.toHaveProperty('voice');
    expect(texts[1].json.metadata).toEqual({ voice: { durationSeconds: 2 } });
  });

  it('without the transcription credential, answers how to set it up on output 1', async () => {
    const [texts, replies] = await run([request({ voice })], false);
    expect(texts).toEqual([]);
    expect(replies).toEqual([
      {
        json: {
          chatId: '7',
          text: 'I can only read text for now: to send voice messages, set up the Assistant Transcription credential (docs/VOICE.md).',
          parseMode: 'HTML',
        },
        pairedItem: { item: 0 },
      },
    ]);
  });

  it('names the request when it is not a checked message', async () => {
    const [texts] = await runNode(new AssistantChannel(), {
      parameters: [{ operation: 'voiceToText', request: 'not json' }],
      items: [{ json: {} }],
      continueOnFail: true,
    });
    expect(texts[0].json).toEqual({ error: 'request: is not JSON', field: 'request' });
  });

  describe("the webhook's voice (base64 audio)", () => {
    const webhookRequest = (data: string) => ({
      json: {
        channel: 'api',
        externalId: 'owner',
        message: '',
        sessionId: 'web-chat',
        metadata: { client: 'console' },
        replyTo: 'q-1',
        voice: { data, mimeType: 'audio/ogg' },
      },
    });
    const runWebhook = (items: Array<{ json: Record<string, unknown> }>, apiKey: string | null) =>
      runNode(new AssistantChannel(), {
        parameters: items.map((item) => ({ operation: 'voiceToText', request: item.json })),
        items: items as never,
        credentials: apiKey
          ? { assistantTranscriptionApi: { baseUrl: `${speech.url}/v1`, apiKey, model: 'whisper-1' } }
          : {},
        nodeCredentials: apiKey
          ? { assistantTranscriptionApi: { id: 'asstTranscribe01', name: 'Assistant Transcription' } }
          : {},
        continueOnFail: true,
      });

    it('goes on as its transcript without the Telegram credential, the audio left out', async () => {
      const [texts, replies] = await runWebhook([webhookRequest(spoken.toString('base64'))], KEY);
      expect(replies).toEqual([]);
      expect(texts).toEqual([
        {
          json: {
            channel: 'api',
            externalId: 'owner',
            message: 'buy oat milk',
            sessionId: 'web-chat',
            metadata: { client: 'console', voice: { mime_type: 'audio/ogg' } },
            replyTo: 'q-1',
          },
          pairedItem: { item: 0 },
        },
      ]);
    });

    it("with transcription off, answers 503 transcription_off in Telegram's words on output 1", async () => {
      const [texts, replies] = await runWebhook([webhookRequest(spoken.toString('base64'))], null);
      expect(texts).toEqual([]);
      expect(replies).toEqual([
        {
          json: {
            statusCode: 503,
            body: {
              error: {
                code: 'transcription_off',
                message:
                  'I can only read text for now: to send voice messages, set up the Assistant Transcription credential (docs/VOICE.md).',
                field: 'voice',
              },
            },
          },
          pairedItem: { item: 0 },
        },
      ]);
    });

    it('answers 422 when no words are heard and 502 when the service refuses, never naming the key', async () => {
      const silent = speak('nothing registered for this audio');
      const [, heard] = await runWebhook([webhookRequest(silent.toString('base64'))], KEY);
      expect(heard[0].json).toMatchObject({ statusCode: 422, body: { error: { code: 'no_words' } } });
      const [, refused] = await runWebhook([webhookRequest(silent.toString('base64'))], 'sk-wrong-key');
      expect(refused[0].json).toMatchObject({
        statusCode: 502,
        body: { error: { code: 'transcription_failed', message: expect.stringMatching(/refused the key/) } },
      });
      expect(JSON.stringify(refused)).not.toContain('sk-wrong-key');
    });
  });
});
