// The Assistant Channel node's outputs are named by operation.
import { describe, expect, it } from 'vitest';
import { configureOutputs } from '../../../nodes/AssistantChannel/v1/outputs';

describe('Assistant Channel outputs', () => {
  it('names outputs by operation', () => {
    expect(configureOutputs({ operation: 'checkWebhookRequest' }).map((o) => o.displayName)).toEqual(['Accepted', 'Rejected']);
    expect(configureOutputs({ operation: 'checkTelegramUpdate' }).map((o) => o.displayName)).toEqual(['Accepted', 'Refused']);
    expect(configureOutputs({ operation: 'formatReply' }).map((o) => o.displayName)).toEqual(['Webhook', 'Telegram']);
  });
});
