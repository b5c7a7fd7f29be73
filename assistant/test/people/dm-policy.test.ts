// DM policies: defaults (today's behaviour), validation naming the field, stored per channel, from the environment.
import { describe, expect, it } from 'vitest';
import { dmPoliciesFromEnv, getDmPolicies, requireDmPolicy, setDmPolicy } from '../../src/people';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';
import { AssistantInputError } from '../../src/errors';

const db = useAssistantDatabase();

describe('DM policies', () => {
  it('defaults to today: Telegram the owner’s only, the API entry open', async () => {
    const all = await getDmPolicies(db.pool);
    expect(all.telegram).toEqual({ policy: 'owner', allow: [] });
    expect(all.api).toEqual({ policy: 'open', allow: [] });
  });

  it('sets one channel, leaving the others', async () => {
    expect(await setDmPolicy(db.pool, { channel: 'telegram', policy: 'allowlist', allow: '42, 43 42' })).toEqual({
      channel: 'telegram',
      policy: 'allowlist',
      allow: ['42', '43'],
    });
    await setDmPolicy(db.pool, { channel: 'api', policy: 'pairing' });
    const all = await getDmPolicies(db.pool);
    expect(all.telegram.allow).toEqual(['42', '43']);
    expect(all.api.policy).toBe('pairing');
  });

  it('names the field of a bad policy', async () => {
    await expectFieldError(() => setDmPolicy(db.pool, { channel: 'fax', policy: 'owner' }), 'channel');
    await expectFieldError(() => setDmPolicy(db.pool, { channel: 'telegram', policy: 'anyone' }), 'policy');
    await expectFieldError(() => setDmPolicy(db.pool, { channel: 'telegram', policy: 'open' }), 'policy');
    await expectFieldError(() => setDmPolicy(db.pool, { channel: 'telegram', policy: 'allowlist' }), 'allow');
    await expectFieldError(
      () => setDmPolicy(db.pool, { channel: 'telegram', policy: 'allowlist', allow: ['abc'] }),
      'externalId',
    );
    expect(requireDmPolicy('telegram', 'pairing', ['7'])).toEqual({ policy: 'pairing', allow: [] });
  });

  it('reads the environment, naming the variable of a bad value', () => {
    expect(
      dmPoliciesFromEnv({ ASSISTANT_DM_POLICY_TELEGRAM: 'Pairing', ASSISTANT_DM_POLICY_API: ' ' } as NodeJS.ProcessEnv),
    ).toEqual([{ channel: 'telegram', policy: 'pairing', allow: [] }]);
    expect(
      dmPoliciesFromEnv({
        ASSISTANT_DM_POLICY_TELEGRAM: 'allowlist',
        ASSISTANT_DM_ALLOW_TELEGRAM: '5,6',
      } as NodeJS.ProcessEnv),
    ).toEqual([{ channel: 'telegram', policy: 'allowlist', allow: ['5', '6'] }]);
    for (const [env, field] of [
      [{ ASSISTANT_DM_POLICY_TELEGRAM: 'everyone' }, 'ASSISTANT_DM_POLICY_TELEGRAM'],
      [{ ASSISTANT_DM_POLICY_TELEGRAM: 'allowlist', ASSISTANT_DM_ALLOW_TELEGRAM: 'x' }, 'ASSISTANT_DM_ALLOW_TELEGRAM'],
    ] as const) {
      const error = (() => {
        try {
          dmPoliciesFromEnv(env as NodeJS.ProcessEnv);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(AssistantInputError);
      expect((error as AssistantInputError).field).toBe(field);
    }
  });
});
