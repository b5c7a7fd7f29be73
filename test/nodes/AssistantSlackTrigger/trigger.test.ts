// The Assistant Slack Trigger against the loopback Slack (test/fakes/slack-api.ts): it connects over Socket Mode with
// the credential's app-level token, acknowledges each envelope, starts one execution per DM or button click with the
// message's fields (a retry of the same event starts none), skips the bot's own messages, refuses a bot token in the
// app-level token's place naming the field, and closes its socket when n8n stops it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IDataObject, INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';

import { AssistantSlackTrigger } from '../../../nodes/AssistantSlackTrigger/AssistantSlackTrigger.node';
import { startSlackFake, type SlackFake } from '../../fakes/slack-api';
import { nodeVersion } from '../helpers/executeFunctions';

const BOT = 'xoxb-1-trigger-test';
const APP = 'xapp-1-trigger-test';
let slack: SlackFake;

beforeAll(async () => {
  slack = await startSlackFake({ botToken: BOT, appToken: APP, signingSecret: 's', ackTimeoutMs: 300 });
});
afterAll(async () => slack?.close());

function triggerContext(appToken: string) {
  const emitted: IDataObject[] = [];
  const errors: Error[] = [];
  const context = {
    getCredentials: async () => ({ appToken, apiUrl: slack.apiUrl }),
    getNode: () => ({ name: 'On Slack Message', type: 'n8n-nodes-judge-assistant.assistantSlackTrigger' }),
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
    helpers: { returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
    emit: (data: INodeExecutionData[][]) => emitted.push(...data[0].map((item) => item.json)),
    emitError: (error: Error) => errors.push(error),
    getMode: () => 'trigger',
  } as unknown as ITriggerFunctions;
  return { context, emitted, errors };
}

const until = async (check: () => boolean) => {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('Assistant Slack Trigger', () => {
  it('is a trigger without inputs on the Slack app credential', () => {
    const { description } = nodeVersion(new AssistantSlackTrigger());
    expect(description.inputs).toEqual([]);
    expect(description.credentials).toEqual([{ name: 'assistantSlackAppApi', required: true }]);
  });

  it('starts one execution per DM and per click, with the fields the workflow uses; retries start none', async () => {
    const node = nodeVersion(new AssistantSlackTrigger());
    const { context, emitted, errors } = triggerContext(APP);
    const response = await node.trigger!.call(context);
    try {
      const event = slack.messageEvent('U0TRIGGER1', 'hello', { threadTs: '1700000100.000200' });
      expect((await slack.redeliver(event, 0)).acked).toBe(true);
      expect((await slack.redeliver(event, 1)).acked).toBe(true);
      await slack.sendMessage('U0TRIGGER1', 'second');
      await until(() => emitted.length === 2);
      expect(emitted[0]).toMatchObject({
        channel: 'slack',
        externalId: 'U0TRIGGER1',
        text: 'hello',
        sessionId: 'slack:D0TRIGGER1:1700000100.000200',
        replyToMessageId: '1700000100.000200',
        replyTarget: 'D0TRIGGER1/1700000100.000200',
      });
      expect(emitted[1]).toMatchObject({ text: 'second', replyTarget: 'D0TRIGGER1' });
      expect(emitted[1].replyToMessageId).toBeUndefined();
      // The bot's own message: acknowledged, no execution.
      const own = slack.messageEvent('U0TRIGGER1', 'mine');
      await slack.redeliver({ ...own, event: { ...(own.event as object), bot_id: 'B0FAKEBOT1' } }, 0);
      // A click on an approval's button: the answer and the question it answers.
      const posted = {
        channel: 'D0TRIGGER1',
        text: 'Install?',
        ts: '1700000200.000100',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: 'answer_0', value: '{"question_id":"77","answer":"yes"}' }],
          },
        ],
      };
      await slack.clickButton('U0TRIGGER1', posted, 'answer_0');
      await until(() => emitted.length === 3);
      expect(emitted[2]).toMatchObject({ text: 'yes', questionId: '77', replyTarget: 'D0TRIGGER1' });
      expect(errors).toEqual([]);
    } finally {
      await response?.closeFunction?.();
    }
    await until(() => slack.connections() === 0);
  });

  it('refuses a bot token where the app-level token belongs, naming the field', async () => {
    const node = nodeVersion(new AssistantSlackTrigger());
    await expect(node.trigger!.call(triggerContext(BOT).context)).rejects.toThrow(/appToken: must be the app-level/);
    await expect(node.trigger!.call(triggerContext('xapp-wrong').context)).rejects.toThrow(/invalid_auth/);
  });
});
