// The Assistant Channel node's outputs are named by operation.
import { describe, expect, it } from 'vitest';
import { configureOutputs } from '../../../nodes/AssistantChannel/v1/helpers/outputs';

const names = (operation?: string) => configureOutputs({ operation }).map((output) => output.displayName);

describe('Assistant Channel outputs', () => {
  it('names outputs by operation', () => {
    expect(names('checkWebhookRequest')).toEqual(['Accepted', 'Rejected']);
    expect(names('checkTelegramUpdate')).toEqual(['Accepted', 'Refused']);
    expect(names('formatReply')).toEqual(['Webhook', 'Telegram']);
    expect(names('describeFailure')).toEqual(['Webhook', 'Telegram']);
    expect(names('startTyping')).toEqual(['Typing']);
    expect(names(undefined)).toEqual(['Accepted', 'Rejected']);
  });

  it('is self-contained, so n8n can evaluate its source text', () => {
    const evaluate = new Function('$parameter', `return (${configureOutputs.toString()})($parameter);`);
    const operations = ['checkWebhookRequest', 'checkTelegramUpdate', 'formatReply', 'describeFailure', 'startTyping'];
    for (const operation of operations) {
      expect(evaluate({ operation })).toEqual(configureOutputs({ operation }));
    }
  });
});
