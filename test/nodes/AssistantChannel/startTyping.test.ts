// Start Typing through the fake IExecuteFunctions, on a real Postgres 17 and the Telegram Bot API fake: the node returns
// at once and "typing…" goes on in the background while the turn runs (at once, then every 4 s), stopping when it is
// answered or at the deadline (the instance's replyDeadlineSeconds unless given); a failing Telegram never fails the
// item; bad input fails the item named, or with continueOnFail becomes an error item.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishTurn, receiveMessage, resolveIdentity } from 'assistant-core';

import { AssistantChannel } from '../../../nodes/AssistantChannel/AssistantChannel.node';
import { typingLoops } from '../../../nodes/AssistantChannel/v1/actions/startTyping.operation';
import {
  startTelegramBotApiFake,
  TelegramBotApiFakeControl,
  type TelegramBotApiFake,
} from '../../fakes/telegram-bot-api';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const TOKEN = '7000000030:typing-node-token';
let db: NodeDatabase;
let telegram: TelegramBotApiFake;
let control: TelegramBotApiFakeControl;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  telegram = await startTelegramBotApiFake({ token: TOKEN });
  control = new TelegramBotApiFakeControl(telegram.url);
  userId = (await resolveIdentity(db.pool, 'telegram', '5151')).userId;
});
afterAll(async () => {
  await Promise.all([...typingLoops]);
  await telegram?.close();
  await db?.stop();
});

async function run(parameters: Parameters[], options: { continueOnFail?: boolean; token?: string } = {}) {
  const [output] = await runNode(new AssistantChannel(), {
    parameters: parameters.map((set) => ({ operation: 'startTyping', ...set })),
    credentials: {
      postgres: db.credential,
      telegramApi: { accessToken: options.token ?? TOKEN, baseUrl: telegram.url },
    },
    continueOnFail: options.continueOnFail,
  });
  return output;
}

const newTurn = async (message: string) => (await receiveMessage(db.pool, userId, { message })).turnId;
const typingIn = async (chatId: string) => (await control.actions(chatId)).filter((a) => a.action === 'typing');

describe('Start Typing', () => {
  it('returns at once, types while the turn runs and stops once it is answered; the deadline is the setting', async () => {
    const turnId = await newTurn('think hard');
    const started = Date.now();
    const [item] = await run([{ userId, turnId, chatId: '5151', deadlineSeconds: 0 }]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(item).toEqual({
      json: { typing: true, chatId: '5151', turnId, deadlineSeconds: 600, everySeconds: 4 },
      pairedItem: { item: 0 },
    });
    expect(typingLoops.size).toBe(1);
    for (let tries = 0; (await typingIn('5151')).length === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await typingIn('5151')).toHaveLength(1);
    await finishTurn(db.pool, userId, turnId, 'Done.');
    const [outcome] = await Promise.all([...typingLoops]);
    expect(outcome).toEqual({ sent: 1, failed: 0, stopped: 'finished' });
    expect(typingLoops.size).toBe(0);
    expect(await typingIn('5151')).toHaveLength(1);
  });

  it('stops at its deadline though the turn still runs', async () => {
    const turnId = await newTurn('never answered');
    await run([{ userId, turnId, chatId: '5152', deadlineSeconds: 1 }]);
    const [outcome] = await Promise.all([...typingLoops]);
    expect(outcome).toEqual({ sent: 1, failed: 0, stopped: 'deadline' });
    expect(await typingIn('5152')).toHaveLength(1);
  });

  it('a Telegram that refuses the bot never fails the item: the send is counted as failed and the loop goes on', async () => {
    const turnId = await newTurn('bad token');
    const [item] = await run([{ userId, turnId, chatId: '5153', deadlineSeconds: 1 }], { token: '1:wrong' });
    expect(item.json).toMatchObject({ typing: true, turnId });
    const [outcome] = await Promise.all([...typingLoops]);
    expect(outcome).toEqual({ sent: 0, failed: 1, stopped: 'deadline' });
  });

  it('bad input fails the item, named; with continueOnFail it becomes an error item and nothing types', async () => {
    const turnId = await newTurn('fine');
    const items = [
      { userId, turnId, chatId: 'not-a-chat' },
      { userId, turnId: 999_999, chatId: '5154' },
      { userId, turnId, chatId: '5154', deadlineSeconds: 901 },
    ];
    const error = await run(items).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe('chatId: must be an integer Telegram chat id');
    expect((error as NodeOperationError).context.itemIndex).toBe(0);
    const output = await run(items, { continueOnFail: true });
    expect(output.map((item) => [item.json, item.pairedItem])).toEqual([
      [{ error: 'chatId: must be an integer Telegram chat id', field: 'chatId' }, { item: 0 }],
      [{ error: expect.stringMatching(/^turnId: /), field: 'turnId' }, { item: 1 }],
      [{ error: 'deadlineSeconds: must be a number of seconds from 0 to 900', field: 'deadlineSeconds' }, { item: 2 }],
    ]);
    expect(typingLoops.size).toBe(0);
    expect(await typingIn('5154')).toEqual([]);
  });
});
