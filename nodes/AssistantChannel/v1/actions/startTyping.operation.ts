// Start Typing: Telegram shows "typing…" while the turn runs. Checks the turn and reads the deadline, then leaves a
// loop running in the background of this process (unref'd timers): sendChatAction at once and every 4 s (an action
// lasts 5 s) until the turn is answered, failed or asks a question, or the deadline passes. It never holds up or fails
// the turn: the node returns at once, and a failed send is logged and the loop goes on.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, Logger } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
  AssistantInputError,
  getInstanceSettings,
  getTurn,
  isTurnRunning,
  keepTyping,
  MAX_REPLY_DEADLINE_SECONDS,
  telegramChannel,
  TYPING_EVERY_MS,
  type TypingOutcome,
} from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { failedItem } from '../../../shared/helpers/errors';
import { parameter } from '../../../shared/helpers/parameters';
import { postgresPool } from '../../../shared/transport/postgres';
import { TELEGRAM_CREDENTIAL } from './voiceToText.operation';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    required: true,
    default: 0,
    description: 'The turn Store Message stored: typing shows while it runs',
  },
  {
    displayName: 'Chat ID',
    name: 'chatId',
    type: 'string',
    required: true,
    default: '={{ $json.chatId }}',
    description: 'The Telegram chat that sees "typing…"',
  },
  {
    displayName: 'Deadline (Seconds)',
    name: 'deadlineSeconds',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: MAX_REPLY_DEADLINE_SECONDS },
    default: 0,
    description: 'Stop after this long even if the turn still runs; 0 uses the instance setting replyDeadlineSeconds',
  },
];

const displayOptions = { show: { operation: ['startTyping'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** The loops still running in this process (tests await them). */
export const typingLoops = new Set<Promise<TypingOutcome>>();

function requireChatId(value: unknown): string {
  const chatId = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d{1,20}$/.test(chatId)) throw new AssistantInputError('chatId', 'must be an integer Telegram chat id');
  return chatId;
}

async function deadlineSeconds(context: IExecuteFunctions, itemIndex: number, read: () => Promise<number>) {
  const given = parameter(context, 'deadlineSeconds', itemIndex);
  if (given !== undefined && (typeof given !== 'number' || given < 0 || given > MAX_REPLY_DEADLINE_SECONDS)) {
    throw new AssistantInputError(
      'deadlineSeconds',
      `must be a number of seconds from 0 to ${MAX_REPLY_DEADLINE_SECONDS}`,
    );
  }
  return given ? (given as number) : await read();
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const logger = this.logger as Logger | undefined;
  const output: INodeExecutionData[] = [];
  const items = this.getInputData();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    try {
      const chatId = requireChatId(parameter(this, 'chatId', itemIndex));
      const userId = parameter(this, 'userId', itemIndex);
      const pool = await postgresPool(this, itemIndex);
      const turn = await getTurn(pool, userId, parameter(this, 'turnId', itemIndex));
      const seconds = await deadlineSeconds(
        this,
        itemIndex,
        async () => (await getInstanceSettings(pool)).replyDeadlineSeconds,
      );
      const telegram = await this.getCredentials<{ accessToken: string; baseUrl?: string }>(
        TELEGRAM_CREDENTIAL,
        itemIndex,
      );
      const api = { baseUrl: telegram.baseUrl || 'https://api.telegram.org', token: telegram.accessToken };
      const channel = telegramChannel(api);
      const loop = keepTyping({
        send: () => channel.typing!(chatId),
        isRunning: () => isTurnRunning(pool, userId, turn.turnId),
        until: new Date(Date.now() + seconds * 1000),
        onError: (error) => logger?.warn(`Start Typing (turn ${turn.turnId}): ${(error as Error).message}`),
      });
      typingLoops.add(loop);
      const forget = () => typingLoops.delete(loop);
      loop.then(forget, forget);
      output.push({
        json: {
          typing: true,
          chatId,
          turnId: turn.turnId,
          deadlineSeconds: seconds,
          everySeconds: TYPING_EVERY_MS / 1000,
        },
        pairedItem: { item: itemIndex },
      });
    } catch (error) {
      output.push(failedItem(this, error, itemIndex));
    }
  }
  return [output];
}
