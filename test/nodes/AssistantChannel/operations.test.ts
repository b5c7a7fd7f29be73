// The Assistant Channel node's operations, driven through the shared fake IExecuteFunctions: webhook checks,
// Telegram updates, replies and failures per channel, errors that name the field and the item.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantChannel } from '../../../nodes/AssistantChannel/AssistantChannel.node';
import { runNode, type ExecuteOptions } from '../helpers/executeFunctions';

const run = (options: ExecuteOptions) => runNode(new AssistantChannel(), options);
const headerAuth = { httpHeaderAuth: { name: 'X-API-Key', value: 'secret' } };
const webhookItem = (headers: Record<string, unknown>, body: unknown) => ({ json: { headers, body } as never });

describe('Check Webhook Request', () => {
  it('accepts a keyed, valid body and rejects the rest as {statusCode, body}, paired to the item', async () => {
    const [accepted, rejected] = await run({
      parameters: { operation: 'checkWebhookRequest' },
      items: [
        webhookItem({ 'x-api-key': 'secret' }, { message: 'Hi', user_id: 'u1' }),
        webhookItem({ 'x-api-key': 'wrong' }, { message: 'Hi', user_id: 'u1' }),
        webhookItem({ 'x-api-key': 'secret' }, { message: '', user_id: 'u1' }),
      ],
      credentials: headerAuth,
    });
    expect(accepted).toEqual([
      {
        json: { channel: 'api', externalId: 'u1', message: 'Hi', sessionId: expect.any(String), metadata: {} },
        pairedItem: { item: 0 },
      },
    ]);
    expect(rejected.map((item) => [item.json.statusCode, item.pairedItem])).toEqual([
      [403, { item: 1 }],
      [400, { item: 2 }],
    ]);
  });
});

describe('Check Telegram Update', () => {
  const update = (chatId: number, text: string) => ({
    json: { update_id: chatId, message: { message_id: 1, chat: { id: chatId }, text } },
  });

  it('passes text messages on, answers unsupported ones and ignores updates without a chat', async () => {
    const [accepted, refused] = await run({
      parameters: { operation: 'checkTelegramUpdate', allowedChats: 'everyone' },
      items: [update(1, 'Hello'), update(2, ''), { json: { update_id: 3 } }],
    });
    expect(accepted.map((item) => [item.json.chatId, item.pairedItem])).toEqual([['1', { item: 0 }]]);
    expect(refused).toEqual([
      {
        json: { chatId: '2', text: 'Sorry, only text and voice messages are supported.', parseMode: 'HTML' },
        pairedItem: { item: 1 },
      },
    ]);
  });

  it('owner only: an unreadable owner setting fails the item, or with continueOnFail gives an error item', async () => {
    const unreachable = { host: '127.0.0.1', port: 9, database: 'x', user: 'u', password: 'p', ssl: 'disable' };
    const options = {
      parameters: { operation: 'checkTelegramUpdate', allowedChats: 'owner', refusal: 'Private.' },
      items: [update(1, 'Hello')],
      credentials: { postgres: unreachable },
    };
    const error = await run(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).context.itemIndex).toBe(0);
    const [accepted, refused] = await run({ ...options, continueOnFail: true });
    expect(accepted).toEqual([
      { json: { error: expect.any(String) }, error: expect.any(NodeOperationError), pairedItem: { item: 0 } },
    ]);
    expect(refused).toEqual([]);
  });
});

describe('Format Reply and Describe Failure', () => {
  it('answers a webhook with {statusCode, body} and a Telegram chat with its message parts', async () => {
    const parameters = { operation: 'formatReply', reply: 'Done.', userId: 'u1', sessionId: 's1', chatId: '42' };
    const [webhook, telegram] = await run({
      parameters: [
        { ...parameters, channel: 'api' },
        { ...parameters, channel: 'telegram' },
      ],
    });
    expect(webhook).toEqual([
      {
        json: { statusCode: 200, body: { reply: 'Done.', user_id: 'u1', session_id: 's1' } },
        pairedItem: { item: 0 },
      },
    ]);
    expect(telegram).toEqual([
      { json: { chatId: '42', text: 'Done.', parseMode: 'HTML', part: 1, parts: 1 }, pairedItem: { item: 1 } },
    ]);
    const [[empty]] = await run({ parameters: { ...parameters, channel: 'api', reply: ' ' } });
    expect(empty.json).toMatchObject({ body: { reply: '(The assistant gave an empty answer.)' } });
  });

  it('turns a failure into a 502/504 answer, or an apology in chat', async () => {
    const parameters = { operation: 'describeFailure', chatId: '42' };
    const [webhook, telegram] = await run({
      parameters: [
        { ...parameters, channel: 'api', error: 'upstream said no' },
        { ...parameters, channel: 'telegram', error: 'Request timed out' },
      ],
    });
    expect(webhook[0].json).toMatchObject({ statusCode: 502 });
    expect(telegram[0]).toMatchObject({ json: { chatId: '42', parts: 1 }, pairedItem: { item: 1 } });
  });

  it('a bad chat id or channel names the field and the item, or is an {error, field} item', async () => {
    const parameters = { operation: 'formatReply', reply: 'Done.' };
    const items = [
      { ...parameters, channel: 'telegram', chatId: '42' },
      { ...parameters, channel: 'telegram', chatId: 'not-a-chat' },
      { ...parameters, channel: 'email' },
    ];
    const error = await run({ parameters: items }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe('chatId: "not-a-chat" is not a Telegram chat id');
    expect((error as NodeOperationError).description).toBe('Check the "chatId" parameter.');
    expect((error as NodeOperationError).context.itemIndex).toBe(1);
    const [webhook, telegram] = await run({ parameters: items, continueOnFail: true });
    expect(telegram.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
    expect(webhook).toEqual([
      {
        json: { error: 'chatId: "not-a-chat" is not a Telegram chat id', field: 'chatId' },
        error: expect.any(NodeOperationError),
        pairedItem: { item: 1 },
      },
      {
        json: { error: 'channel: must be "api" or "telegram", got "email"', field: 'channel' },
        error: expect.any(NodeOperationError),
        pairedItem: { item: 2 },
      },
    ]);
  });
});
