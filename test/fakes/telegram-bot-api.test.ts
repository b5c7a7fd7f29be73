// The fake Telegram Bot API, driven by the real `node-telegram-bot-api` client, and its webhook delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const TelegramBot = require('node-telegram-bot-api');
import {
  startTelegramBotApiFake,
  TelegramBotApiFakeControl,
  visibleTextOfHtml,
  type TelegramBotApiFake,
} from './telegram-bot-api';

const TOKEN = '123456:TEST-token_abc';

describe('fake Telegram Bot API', () => {
  let fake: TelegramBotApiFake;
  let control: TelegramBotApiFakeControl;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let bot: any;

  beforeAll(async () => {
    fake = await startTelegramBotApiFake({ token: TOKEN });
    control = new TelegramBotApiFakeControl(fake.url);
    bot = new TelegramBot(TOKEN, { polling: false, baseApiUrl: fake.url });
  });
  afterAll(() => fake.close());

  it('answers getMe, and 401 for another token', async () => {
    expect(await bot.getMe()).toMatchObject({ id: 123456, is_bot: true });
    const stranger = new TelegramBot('999:nope', { polling: false, baseApiUrl: fake.url });
    await expect(stranger.getMe()).rejects.toMatchObject({ response: { statusCode: 401 } });
  });

  it('records sent messages and chat actions', async () => {
    const sent = await bot.sendMessage(42, 'Hello <b>there</b> &amp; welcome', { parse_mode: 'HTML' });
    expect(sent.text).toBe('Hello there & welcome');
    await bot.sendChatAction(42, 'typing');
    const messages = await control.sent(42);
    expect(messages.at(-1)).toMatchObject({
      chat_id: '42',
      text: 'Hello <b>there</b> &amp; welcome',
      parse_mode: 'HTML',
    });
    expect(await control.actions(42)).toEqual([{ chat_id: '42', action: 'typing', at: expect.any(String) }]);
  });

  it('a user who blocked the bot: 403 "Forbidden: bot was blocked by the user" until unblocked', async () => {
    await control.block(77);
    await expect(bot.sendMessage(77, 'hello?')).rejects.toMatchObject({
      response: { statusCode: 403, body: { description: 'Forbidden: bot was blocked by the user' } },
    });
    await control.block(77, false);
    expect((await bot.sendMessage(77, 'hello again')).text).toBe('hello again');
  });

  it('checks chat actions as Telegram does: a chat id and an action from its list; counts them per chat', async () => {
    await bot.sendChatAction(7, 'typing');
    await bot.sendChatAction(7, 'upload_photo');
    await expect(bot.sendChatAction(7, 'dancing')).rejects.toMatchObject({
      response: { statusCode: 400, body: { description: 'Bad Request: wrong parameter action in request' } },
    });
    await expect(bot.sendChatAction('', 'typing')).rejects.toMatchObject({
      response: { statusCode: 400, body: { description: 'Bad Request: chat_id is empty' } },
    });
    await expect(bot.sendChatAction(7, '')).rejects.toMatchObject({
      response: { statusCode: 400, body: { description: 'Bad Request: action is empty' } },
    });
    expect((await control.actions(7)).map((action) => action.action)).toEqual(['typing', 'upload_photo']);
    expect((await control.actions()).length).toBeGreaterThanOrEqual(3);
  });

  it('rejects what Telegram rejects: too long, empty, broken HTML', async () => {
    await expect(bot.sendMessage(42, 'x'.repeat(4097))).rejects.toMatchObject({
      response: { body: { description: 'Bad Request: message is too long' } },
    });
    expect(await bot.sendMessage(42, 'x'.repeat(4096))).toBeTruthy();
    await expect(bot.sendMessage(42, 'a < b', { parse_mode: 'HTML' })).rejects.toMatchObject({
      response: { statusCode: 400 },
    });
    await expect(bot.sendMessage(42, '<b>open', { parse_mode: 'HTML' })).rejects.toMatchObject({
      response: { statusCode: 400 },
    });
    expect(() => visibleTextOfHtml('fish & chips')).toThrow(/can't parse entities/);
    expect(visibleTextOfHtml('<pre><code>x &lt; 1</code></pre>')).toBe('x < 1');
  });

  it('takes a photo upload (multipart), refuses what is not an image, and records it', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from('rest of the file'),
    ]);
    const sent = await bot.sendPhoto(43, png, {}, { filename: 'shot.png', contentType: 'image/png' });
    expect(sent.photo[0]).toMatchObject({ width: 1280 });
    expect((await control.sent(43)).at(-1)?.photo).toMatchObject({ format: 'png', size: png.length });
    await expect(
      bot.sendPhoto(43, Buffer.from('not an image'), {}, { filename: 'x.png', contentType: 'image/png' }),
    ).rejects.toMatchObject({ response: { statusCode: 400 } });
  });

  it('delivers updates to the registered webhook with the secret token header', async () => {
    const received: Array<{ secret: string | undefined; update: { message: { text: string; chat: { id: number } } } }> =
      [];
    const server: Server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        received.push({
          secret: req.headers['x-telegram-bot-api-secret-token'] as string | undefined,
          update: JSON.parse(raw),
        });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      expect(await bot.setWebHook(hook, { secret_token: 'S3cret_token' })).toBe(true);
      expect(await bot.getWebHookInfo()).toMatchObject({ url: hook });
      const delivery = await control.deliverText(77, 'hi bot');
      expect(delivery.status).toBe(200);
      expect(received[0]).toMatchObject({
        secret: 'S3cret_token',
        update: { message: { text: 'hi bot', chat: { id: 77 } } },
      });
      await control.deliverText(77, '123456', undefined, 5);
      expect(received[1]).toMatchObject({
        update: { message: { text: '123456', reply_to_message: { message_id: 5 } } },
      });
      await expect(bot.getUpdates()).rejects.toMatchObject({ response: { statusCode: 409 } });
      expect(await bot.deleteWebHook()).toBe(true);
      expect(await control.webhook()).toBeNull();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
