// Identities on a real Postgres 17: one user per identity (also under concurrency), namespaced by channel, linking.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('identities', () => {
  it('resolves the same identity to the same user, and creates it only once under concurrency', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map(() => assistant.resolveIdentity(db.pool, 'telegram', 424242)),
    );
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results[0].identity).toBe('telegram:424242');
  });

  it('namespaces by channel: an API caller naming a Telegram identity gets a different user', async () => {
    const telegram = await assistant.resolveIdentity(db.pool, 'telegram', '777');
    const sneaky = await assistant.resolveIdentity(db.pool, 'api', 'telegram:777');
    const plain = await assistant.resolveIdentity(db.pool, 'api', '777');
    expect(sneaky.identity).toBe('api:telegram:777');
    expect(new Set([telegram.userId, sneaky.userId, plain.userId]).size).toBe(3);
  });

  it('rejects bad identities, naming the field', async () => {
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'telegram', 'abc'), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'api', '   '), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'api', 'a\u0000b'), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'fax', '12345'), 'channel');
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'email', 'not an address'), 'externalId');
    await expectFieldError(() => assistant.resolveIdentity(db.pool, 'slack', 'x@y'), 'externalId');
  });

  it('links a second identity to a user, and refuses to steal one', async () => {
    const owner = await assistant.resolveIdentity(db.pool, 'telegram', '1001');
    await assistant.linkIdentity(db.pool, owner.userId, 'api', 'owner-laptop');
    expect((await assistant.resolveIdentity(db.pool, 'api', 'owner-laptop')).userId).toBe(owner.userId);
    const other = await assistant.resolveIdentity(db.pool, 'api', 'someone-else');
    await expectFieldError(() => assistant.linkIdentity(db.pool, other.userId, 'telegram', '1001'), 'externalId');
    expect((await assistant.resolveIdentity(db.pool, 'telegram', '1001')).userId).toBe(owner.userId);
  });
});
