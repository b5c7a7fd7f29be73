// Assistant Channel v1's router: every operation is reached, an unknown one is refused before anything is read.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantChannel } from '../../../nodes/AssistantChannel/AssistantChannel.node';
import { operations, router } from '../../../nodes/AssistantChannel/v1/actions/router';
import { executeFunctions, nodeVersion, type ExecuteOptions } from '../helpers/executeFunctions';

const channel = nodeVersion(new AssistantChannel());
const run = (options: ExecuteOptions) => router.call(executeFunctions(channel, options));

describe('Assistant Channel v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError, reading no credential', async () => {
    const context = executeFunctions(channel, { parameters: { operation: 'sendEmail' } });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "sendEmail" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('reaches every operation of the selector', async () => {
    const selector = channel.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual([
      'admitSender',
      'answerTurn',
      'checkTelegramUpdate',
      'checkWebhookRequest',
      'describeFailure',
      'formatReply',
      'startTyping',
      'voiceToText',
    ]);
    expect(Object.keys(operations)).toEqual(values);

    const [, rejected] = await run({
      parameters: { operation: 'checkWebhookRequest' },
      items: [{ json: { headers: {}, body: {} } }],
      credentials: { httpHeaderAuth: { name: 'X-API-Key', value: 'k' } },
    });
    expect(rejected[0].json).toMatchObject({ statusCode: 401 });
    const update = { update_id: 1, message: { message_id: 2, chat: { id: 42 }, text: 'Hi' } };
    const [accepted] = await run({
      parameters: { operation: 'checkTelegramUpdate', allowedChats: 'everyone' },
      items: [{ json: update }],
    });
    expect(accepted[0].json).toMatchObject({ channel: 'telegram', chatId: '42', message: 'Hi' });
    const [webhook] = await run({ parameters: { operation: 'formatReply', channel: 'api', reply: 'Done.' } });
    expect(webhook[0].json).toMatchObject({ statusCode: 200, body: { reply: 'Done.' } });
    const [failure] = await run({ parameters: { operation: 'describeFailure', channel: 'api', error: 'timeout' } });
    expect(failure[0].json).toMatchObject({ statusCode: 504 });
    const [typing] = await run({
      parameters: { operation: 'startTyping', userId: 'u', turnId: 1, chatId: 'not-a-chat' },
      continueOnFail: true,
    });
    expect(typing[0].json).toEqual({ error: 'chatId: must be an integer Telegram chat id', field: 'chatId' });
  });
});
