// Users' own spending caps as one setting, ASSISTANT_BUDGET_USERS: entries keyed by identity, a bad entry named, and
// the stored user caps made exactly what the setting says on a real Postgres (a user not seen yet is created).
import { describe, expect, it } from 'vitest';
import { listCaps } from '../../src/budget/caps';
import { applyUserCaps, describeUserCaps, userCapsFromSettings } from '../../src/budget/user-caps';
import { resolveIdentity } from '../../src/identities/identities';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
const read = (value: string) => userCapsFromSettings({ ASSISTANT_BUDGET_USERS: value });

describe('userCapsFromSettings', () => {
  it('reads identities with dollars or tokens per day or month', () => {
    expect(read('telegram:4242001=2/day, api:alice=0.50/day, api:alice=20/month, api:bot=100000tok/day')).toEqual([
      { identity: 'telegram:4242001', period: 'day', limitUsd: 2, limitTokens: null },
      { identity: 'api:alice', period: 'day', limitUsd: 0.5, limitTokens: null },
      { identity: 'api:alice', period: 'month', limitUsd: 20, limitTokens: null },
      { identity: 'api:bot', period: 'day', limitUsd: null, limitTokens: 100_000 },
    ]);
    expect(read('')).toEqual([]);
  });

  it('names the setting and the bad entry', () => {
    expect(() => read('alice=1/day')).toThrow(
      'ASSISTANT_BUDGET_USERS: "alice=1/day" names no identity: "alice" is not like telegram:<chat id> or api:<user_id>',
    );
    expect(() => read('telegram:abc=1/day')).toThrow('names no identity');
    expect(() => read('api:alice=1/week')).toThrow('has no period: "week" is not day or month');
  });
});

describe('applyUserCaps', () => {
  it("sets each named user's caps (creating a user not seen yet), and removes the caps no longer named", async () => {
    const alice = (await resolveIdentity(db.pool, 'api', 'alice')).userId;
    await applyUserCaps(db.pool, read('api:alice=0.50/day, api:newcomer=1/month'));
    const newcomer = (await resolveIdentity(db.pool, 'api', 'newcomer')).userId;
    const caps = (await listCaps(db.pool)).filter((cap) => cap.scope === 'user');
    expect(caps.map((c) => [c.userId, c.period, c.limitUsd])).toEqual([
      [alice, 'day', 0.5],
      [newcomer, 'month', 1],
    ]);
    await applyUserCaps(db.pool, read('api:alice=2/day'));
    const after = (await listCaps(db.pool)).filter((cap) => cap.scope === 'user');
    expect(after.map((c) => [c.userId, c.period, c.limitUsd])).toEqual([[alice, 'day', 2]]);
    expect(describeUserCaps(read('api:alice=2/day, api:bot=5tok/month'))).toBe(
      'user caps: api:alice day $2, api:bot month 5 tokens',
    );
  });
});
