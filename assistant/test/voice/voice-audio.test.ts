// Audio sent to the webhook (base64) to text against a loopback OpenAI-compatible transcription endpoint, with real
// OGG/Opus speech: the transcript; transcription off, no words heard and a failing service each with Telegram's
// sentence and the reason the webhook answers with. Nothing here names the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VOICE_NOT_SET_UP, transcriptionSettings, voiceAudioText } from '../../src/voice';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';
import { speak } from '../../../test/fakes/speech';

const KEY = 'sk-voice-audio-test-key';
let speech: OpenAiChatFake;

beforeAll(async () => {
  speech = await startOpenAiChatFake({ apiKey: KEY });
});
afterAll(async () => {
  await speech?.close();
});

const settings = (apiKey = KEY) => transcriptionSettings({ baseUrl: `${speech.url}/v1`, apiKey, model: 'whisper-1' });
const ogg = (audio: Buffer) => ({ data: audio.toString('base64'), mimeType: 'audio/ogg' });

describe('voice audio to text', () => {
  it('returns the transcript of the audio', async () => {
    const audio = speak('water the plants at six');
    await new OpenAiChatFakeControl(speech.url).addTranscript(audio, 'Water the plants at six.');
    expect(await voiceAudioText(ogg(audio), settings())).toEqual({ ok: true, text: 'Water the plants at six.' });
  });

  it('says why not: transcription off, no words heard, the service refusing the key or the format', async () => {
    const audio = speak('nothing registered');
    expect(await voiceAudioText(ogg(audio), undefined)).toEqual({
      ok: false,
      reason: 'transcription_off',
      reply: VOICE_NOT_SET_UP,
    });
    expect(await voiceAudioText(ogg(audio), settings())).toEqual({
      ok: false,
      reason: 'no_words',
      reply: 'I could not make out any words in that voice message.',
    });
    const refused = await voiceAudioText(ogg(audio), settings('sk-wrong'));
    expect(refused).toEqual({ ok: false, reason: 'transcription_failed', reply: expect.stringMatching(/HTTP 401/) });
    expect(JSON.stringify(refused)).not.toContain('sk-wrong');
    const garbage = await voiceAudioText(
      { data: Buffer.from('not audio').toString('base64'), mimeType: 'audio/webm' },
      settings(),
    );
    expect(garbage).toEqual({
      ok: false,
      reason: 'transcription_failed',
      reply: expect.stringMatching(/HTTP 400: Invalid file format/),
    });
  });
});
