// Pairing codes on a real Postgres 17: only the hash is stored, who may issue which code, the code's shape.
import { beforeAll, describe, expect, it } from 'vitest';
import { updateInstanceSettings } from '../../src/settings/settings';
import {
  admit,
  hashPairingCode,
  issuePairingCode,
  MAX_ATTEMPTS_OVERALL,
  normalisePairingCode,
  redeemPairingCode,
  setDmPolicy,
} from '../../src/people';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const now = new Date('2026-11-29T10:00:00Z');
let owner = '';

beforeAll(async () => {
  await updateInstanceSettings(db.pool, { ownerTelegramChatId: '100' });
  owner = ((await admit(db.pool, { channel: 'telegram', externalId: '100', text: '', now })) as { userId: string })
    .userId;
});

describe('pairing codes', () => {
  it('reads a code as people type it, and nothing else', () => {
    expect(normalisePairingCode('abcd-efgh')).toBe('ABCDEFGH');
    expect(normalisePairingCode(' ABCD EFGH\n')).toBe('ABCDEFGH');
    expect(normalisePairingCode('ABCD-EFG0')).toBeNull(); // 0 is not in the alphabet
    expect(normalisePairingCode('hello there')).toBeNull();
    expect(normalisePairingCode('ABCDEFGHJ')).toBeNull();
    expect(normalisePairingCode(42)).toBeNull();
  });

  it('stores only the hash, with the expiry the owner asked for', async () => {
    const issued = await issuePairingCode(db.pool, {
      callerUserId: owner,
      personName: ' Ana  Maria ',
      minutes: 5,
      now,
    });
    expect(issued.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(issued.expiresAt).toBe('2026-11-29T10:05:00.000Z');
    expect(issued.for).toEqual({ newPerson: 'Ana Maria' });
    const rows = await db.pool.query('SELECT * FROM assistant.pairing_codes');
    expect(JSON.stringify(rows.rows)).not.toContain(issued.code.replace('-', ''));
    expect(rows.rows.map((r) => r.code_hash)).toContain(hashPairingCode(normalisePairingCode(issued.code)!));
  });

  it('lets only the owner let a new person in; a stranger’s user may issue nothing', async () => {
    const stranger = await createUser(db.pool, 'stranger');
    await expectFieldError(
      () => issuePairingCode(db.pool, { callerUserId: stranger, personName: 'Mallory', now }),
      'forSelf',
    );
    await expectFieldError(
      () => issuePairingCode(db.pool, { callerUserId: stranger, forSelf: true, now }),
      'callerUserId',
    );
  });

  it('names the field of bad input', async () => {
    await expectFieldError(() => issuePairingCode(db.pool, { callerUserId: owner, now }), 'personName');
    await expectFieldError(
      () => issuePairingCode(db.pool, { callerUserId: owner, personName: 'x', minutes: 0, now }),
      'minutes',
    );
    await expectFieldError(
      () => issuePairingCode(db.pool, { callerUserId: owner, personName: 'x', minutes: 1441, now }),
      'minutes',
    );
    await expectFieldError(() => issuePairingCode(db.pool, { callerUserId: owner, forSelf: 'yes', now }), 'forSelf');
    await expectFieldError(
      () => issuePairingCode(db.pool, { callerUserId: 'nobody', personName: 'x', now }),
      'callerUserId',
    );
  });

  it('pauses pairing for everyone after too many wrong codes overall', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    for (let i = 0; i < MAX_ATTEMPTS_OVERALL; i++) {
      const result = await redeemPairingCode(db.pool, {
        identity: `telegram:${5000 + i}`,
        normalised: 'ZZZZZZZZ',
        ownerCodesOnly: false,
        now,
      });
      expect(result.kind).toBe('wrong');
    }
    const { code } = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Late', now });
    const normalised = normalisePairingCode(code)!;
    const redeem = (at: Date) =>
      redeemPairingCode(db.pool, { identity: 'telegram:6000', normalised, ownerCodesOnly: false, now: at });
    expect(await redeem(new Date(now.getTime() + 60_000))).toEqual({ kind: 'limited' });
    // The code's own 15 minutes outlast the pause only if issued later; an hour on, a fresh code pairs.
    const later = new Date(now.getTime() + 61 * 60_000);
    const fresh = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Late', now: later });
    const paired = await redeemPairingCode(db.pool, {
      identity: 'telegram:6000',
      normalised: normalisePairingCode(fresh.code)!,
      ownerCodesOnly: false,
      now: later,
    });
    expect(paired).toMatchObject({ kind: 'paired', newPerson: true, name: 'Late' });
  });
});
