// A pull channel's receipts (channels/delivery.ts): the body of POST /webhook/agent/outbox/receipts checked field by
// field, and what a receipt changes in the outbox: a stored message becomes delivered on the web chat, once; a
// message a push channel carries (the user's Telegram chat) and another user's message are left as they are.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
const NOW = new Date('2026-11-29T12:00:00Z');
let users = 0;
const newUser = async (channel: 'api' | 'telegram') =>
  (await assistant.resolveIdentity(db.pool, channel, channel === 'api' ? `receipts-${++users}` : `77${++users}`))
    .userId;

describe('parseReceiptsRequest', () => {
  it('takes {user_id, channel: "web", shown}, ids de-duplicated', () => {
    expect(assistant.parseReceiptsRequest({ user_id: ' owner ', channel: 'web', shown: [3, 4, 3] })).toEqual({
      externalId: 'owner',
      channel: 'web',
      ids: [3, 4],
    });
  });

  it.each([
    [null, 'body'],
    [[1], 'body'],
    [{ user_id: 'owner', channel: 'web', shown: [1], extra: 1 }, 'extra'],
    [{ channel: 'web', shown: [1] }, 'user_id'],
    [{ user_id: '', channel: 'web', shown: [1] }, 'user_id'],
    [{ user_id: 'owner', shown: [1] }, 'channel'],
    [{ user_id: 'owner', channel: 'telegram', shown: [1] }, 'channel'],
    [{ user_id: 'owner', channel: 'web' }, 'shown'],
    [{ user_id: 'owner', channel: 'web', shown: [] }, 'shown'],
    [{ user_id: 'owner', channel: 'web', shown: ['1'] }, 'shown'],
    [{ user_id: 'owner', channel: 'web', shown: [0] }, 'shown'],
    [{ user_id: 'owner', channel: 'web', shown: [1.5] }, 'shown'],
    [{ user_id: 'owner', channel: 'web', shown: Array.from({ length: 501 }, (_, i) => i + 1) }, 'shown'],
  ])('refuses %j naming %s', (body, field) => {
    const refused = assistant.parseReceiptsRequest(body);
    expect(refused).toMatchObject({ statusCode: 400, body: { error: { code: 'invalid_request', field } } });
    expect((refused as { body: { error: { message: string } } }).body.error.message).toMatch(new RegExp(`^${field}: `));
  });
});

describe('recordShownOnChannel', () => {
  const web = assistant.webChatChannel();

  it('a stored message shown on the web chat is delivered there, once', async () => {
    const userId = await newUser('api');
    const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'Check failed' });
    expect(message).toMatchObject({ channel: 'pull', status: 'stored', attempts: 0, deliveredAt: null });
    const [receipt] = await assistant.recordShownOnChannel(db.pool, web, userId, [message.id], NOW);
    expect(receipt).toMatchObject({ id: message.id, channel: 'web', status: 'delivered', attempts: 1 });
    expect(receipt.deliveredAt).toBe(NOW.toISOString());
    const later = new Date(NOW.getTime() + 60_000);
    expect(await assistant.recordShownOnChannel(db.pool, web, userId, [message.id], later)).toEqual([receipt]);
  });

  it("leaves a push channel's message and another user's message as they are", async () => {
    const telegramUser = await newUser('telegram');
    const { message: onTelegram } = await assistant.queueMessage(db.pool, telegramUser, {
      kind: 'reminder',
      text: 'A',
    });
    expect(onTelegram).toMatchObject({ channel: 'telegram', status: 'pending' });
    const [kept] = await assistant.recordShownOnChannel(db.pool, web, telegramUser, [onTelegram.id], NOW);
    expect(kept).toEqual(onTelegram);

    const someone = await newUser('api');
    const { message: theirs } = await assistant.queueMessage(db.pool, someone, { kind: 'notice', text: 'B' });
    const me = await newUser('api');
    expect(await assistant.recordShownOnChannel(db.pool, web, me, [theirs.id], NOW)).toEqual([]);
    expect(await assistant.getOutboxMessage(db.pool, theirs.id)).toEqual(theirs);
  });

  it('refuses a push channel: its receipt is its send', async () => {
    const userId = await newUser('api');
    const telegram = assistant.telegramChannel(null);
    await expect(assistant.recordShownOnChannel(db.pool, telegram, userId, [1], NOW)).rejects.toMatchObject({
      field: 'channel',
    });
  });
});
