// A voice note to text against loopback fakes of the Telegram Bot API (getFile and the download) and an
// OpenAI-compatible transcription endpoint, with real OGG/Opus speech made by espeak-ng and opusenc: the transcript;
// voice not set up; too large (as Telegram says, and as the download finds); a refused key; a file Telegram does not
// have; audio that is not OGG/Opus; silence. Nothing here names the bot token or the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VOICE_BYTES, VOICE_NOT_SET_UP, transcriptionSettings, voiceNoteText } from '../../src/voice';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';
import { speak } from '../../../test/fakes/speech';
import { startTelegramBotApiFake, type TelegramBotApiFake } from '../../../test/fakes/telegram-bot-api';

const TOKEN = '7000000009:voice-test-token';
const KEY = 'sk-voice-test-key';
let telegram: TelegramBotApiFake;
let speech: OpenAiChatFake;

async function addFile(fileId: string, bytes: Buffer): Promise<void> {
  await fetch(`${telegram.url}/__files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_id: fileId, base64: bytes.toString('base64'), file_path: `voice/${fileId}.oga` }),
  });
}

beforeAll(async () => {
  telegram = await startTelegramBotApiFake({ token: TOKEN });
  speech = await startOpenAiChatFake({ apiKey: KEY });
});
afterAll(async () => {
  await telegram?.close();
  await speech?.close();
});

const api = () => ({ baseUrl: telegram.url, token: TOKEN });
const settings = (apiKey = KEY) => transcriptionSettings({ baseUrl: `${speech.url}/v1`, apiKey, model: 'whisper-1' });

describe('voice notes', () => {
  it('downloads the note and returns its transcript', async () => {
    const audio = speak('remind me to water the plants at six');
    await new OpenAiChatFakeControl(speech.url).addTranscript(audio, 'Remind me to water the plants at six.');
    await addFile('v1', audio);
    const result = await voiceNoteText(
      { fileId: 'v1', mimeType: 'audio/ogg', fileSize: audio.length },
      api(),
      settings(),
    );
    expect(result).toEqual({ ok: true, text: 'Remind me to water the plants at six.' });
  });

  it('without a transcription service, says in one sentence how to set it up', async () => {
    expect(transcriptionSettings({ baseUrl: ' ', model: 'whisper-1' })).toBeUndefined();
    expect(await voiceNoteText({ fileId: 'v1', mimeType: 'audio/ogg' }, api(), undefined)).toEqual({
      ok: false,
      reply: VOICE_NOT_SET_UP,
    });
    expect(VOICE_NOT_SET_UP.split('. ').length).toBe(1);
  });

  it('refuses a note over the size limit, as Telegram reports it or as the download finds it', async () => {
    const big = await voiceNoteText(
      { fileId: 'v1', mimeType: 'audio/ogg', fileSize: MAX_VOICE_BYTES + 1 },
      api(),
      settings(),
    );
    expect(big).toEqual({ ok: false, reply: expect.stringMatching(/too long for me \(over 20 MB\)/) });
    await addFile('v2', Buffer.alloc(4096, 'a'));
    const found = await voiceNoteText({ fileId: 'v2', mimeType: 'audio/ogg' }, api(), settings(), 1024);
    expect(found).toEqual({ ok: false, reply: expect.stringMatching(/too long for me \(over 0 MB\)/) });
  });

  it('says what failed: a refused key, a file Telegram does not have, silence', async () => {
    const refused = await voiceNoteText({ fileId: 'v1', mimeType: 'audio/ogg' }, api(), settings('sk-wrong'));
    expect(refused).toEqual({ ok: false, reply: expect.stringMatching(/refused the key \(HTTP 401\)/) });
    const missing = await voiceNoteText({ fileId: 'nope', mimeType: 'audio/ogg' }, api(), settings());
    expect(missing).toEqual({ ok: false, reply: expect.stringMatching(/Telegram could not give the voice note/) });
    await addFile('v3', speak(' '));
    const silent = await voiceNoteText({ fileId: 'v3', mimeType: 'audio/ogg' }, api(), settings());
    expect(silent).toEqual({ ok: false, reply: 'I could not make out any words in that voice message.' });
    await addFile('v4', Buffer.from('not audio at all'));
    const garbage = await voiceNoteText({ fileId: 'v4', mimeType: 'audio/ogg' }, api(), settings());
    expect(garbage).toEqual({ ok: false, reply: expect.stringMatching(/HTTP 400: Invalid file format/) });
    for (const result of [refused, missing]) {
      expect(JSON.stringify(result)).not.toContain(TOKEN);
      expect(JSON.stringify(result)).not.toContain('sk-wrong');
    }
  });
});
