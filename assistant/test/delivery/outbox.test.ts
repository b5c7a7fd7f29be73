// The outbox on a real Postgres 17: the channel is chosen from the user's identities and callback URL, a dedupe key
// queues once, a pull-only user's messages are stored for pulling, listing pages by id, bad input names the field.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('outbox', () => {
  it('queues once per dedupe key and lists after an id', async () => {
    const userId = await createUser(db.pool, 'pull');
    const first = await assistant.queueMessage(db.pool, userId, {
      kind: 'reminder',
      text: 'a',
      dedupeKey: `k:${userId}`,
    });
    const again = await assistant.queueMessage(db.pool, userId, {
      kind: 'reminder',
      text: 'a',
      dedupeKey: `k:${userId}`,
    });
    expect(first.queued).toBe(true);
    expect(again).toMatchObject({ queued: false, message: { id: first.message.id } });
    expect(first.message).toMatchObject({ channel: 'pull', status: 'stored' });
    const second = await assistant.queueMessage(db.pool, userId, { kind: 'nudge', text: 'b' });
    expect((await assistant.listOutbox(db.pool, userId)).map((m) => m.text)).toEqual(['a', 'b']);
    expect((await assistant.listOutbox(db.pool, userId, { after: String(first.message.id) })).map((m) => m.id)).toEqual(
      [second.message.id],
    );
    expect(first.message.apiUserId).toMatch(/^pull-/);
  });

  it('prefers Telegram, then the callback URL', async () => {
    const userId = await createUser(db.pool, 'cb');
    await assistant.setCallbackUrl(db.pool, userId, 'https://example.com/hook');
    expect((await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'x' })).message).toMatchObject({
      channel: 'webhook',
      target: 'https://example.com/hook',
      status: 'pending',
    });
  });

  it('names the field of bad input', async () => {
    const userId = await createUser(db.pool, 'bad');
    await expectFieldError(() => assistant.queueMessage(db.pool, userId, { kind: 'gossip', text: 'x' }), 'kind');
    await expectFieldError(() => assistant.queueMessage(db.pool, userId, { kind: 'notice', text: ' ' }), 'text');
    await expectFieldError(() => assistant.listOutbox(db.pool, userId, { after: '-1' }), 'after');
    await expectFieldError(() => assistant.listOutbox(db.pool, userId, { limit: '0' }), 'limit');
    expect(assistant.retryDelaySeconds(1, 30)).toBe(30);
    expect(assistant.retryDelaySeconds(7, 30)).toBe(1920);
  });
});
