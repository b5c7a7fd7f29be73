// Telegram updates: text messages normalised, others marked unsupported or ignored.
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
});
