// Telegram updates: text messages normalised, voice notes passed on to transcribe, others unsupported or ignored.
import { describe, expect, it } from 'vitest';
import { normaliseTelegramUpdate } from '../../src/channel';

describe('Telegram updates', () => {
  const update = (message: Record<string, unknown>) => ({
    update_id: 1,
    message: { message_id: 9, chat: { id: 555 }, from: { id: 555, first_name: 'Ann' }, ...message },
  });

  it('normalises a text message', () => {
    expect(normaliseTelegramUpdate(update({ text: 'hello' }))).toEqual({
      kind: 'message',
      request: expect.objectContaining({
        channel: 'telegram',
        externalId: '555',
        chatId: '555',
        message: 'hello',
        sessionId: 'telegram:555',
      }),
    });
  });
  it('marks non-text messages unsupported and ignores updates without a chat or from bots', () => {
    expect(normaliseTelegramUpdate(update({ sticker: {} }))).toMatchObject({ kind: 'unsupported', chatId: '555' });
    expect(normaliseTelegramUpdate({ update_id: 2, callback_query: {} })).toMatchObject({ kind: 'ignored' });
    expect(normaliseTelegramUpdate(update({ text: 'x', from: { id: 1, is_bot: true } }))).toMatchObject({
      kind: 'ignored',
    });
  });

  it('passes a voice note on with an empty message, for the workflow to transcribe', () => {
    const voice = { file_id: 'AwAC-1', duration: 4, mime_type: 'audio/ogg', file_size: 8000 };
    expect(normaliseTelegramUpdate(update({ voice }))).toEqual({
      kind: 'message',
      request: expect.objectContaining({
        message: '',
        voice: { fileId: 'AwAC-1', mimeType: 'audio/ogg', fileSize: 8000, durationSeconds: 4 },
      }),
    });
    expect(normaliseTelegramUpdate(update({ voice: { duration: 1 } }))).toMatchObject({ kind: 'unsupported' });
  });
});
