// The gate on a real Postgres 17: the owner as today, strangers refused (owner policy) or told to pair (pairing
// policy), a code pairing a stranger as a new person with their own user, a second channel paired to the same person,
// wrong, expired and used codes refused, the attempts limited, allow lists and the open API entry.
import { beforeAll, describe, expect, it } from 'vitest';
import { updateInstanceSettings } from '../../src/settings/settings';
import { remember, recall } from '../../src/memory';
import {
  admit,
  issuePairingCode,
  LIMITED_TEXT,
  MAX_ATTEMPTS_PER_SENDER,
  PAIRING_PROMPT,
  REFUSAL_TEXT,
  setDmPolicy,
  WRONG_CODE_TEXT,
} from '../../src/people';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const at = (minute: number) => new Date(Date.UTC(2026, 10, 29, 9, minute));
let owner = '';

beforeAll(async () => {
  await updateInstanceSettings(db.pool, { ownerTelegramChatId: '100' });
  const first = await admit(db.pool, { channel: 'telegram', externalId: '100', text: 'hi', now: at(0) });
  expect(first.kind).toBe('owner');
  owner = (first as { userId: string }).userId;
});

describe('admit', () => {
  it('lets the owner in as today, under every policy, always as the same user', async () => {
    for (const policy of ['owner', 'pairing'] as const) {
      await setDmPolicy(db.pool, { channel: 'telegram', policy });
      expect(await admit(db.pool, { channel: 'telegram', externalId: '100', text: 'x', now: at(1) })).toEqual({
        kind: 'owner',
        userId: owner,
      });
    }
  });

  it('refuses a stranger under the owner policy, even with a code for a new person, and stores no user', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'owner' });
    const issued = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Ana', now: at(2) });
    const users = Number((await db.pool.query('SELECT count(*) FROM assistant.users')).rows[0].count);
    for (const text of ['hello', issued.code]) {
      expect(await admit(db.pool, { channel: 'telegram', externalId: '201', text, now: at(3) })).toEqual({
        kind: 'refused',
        reply: REFUSAL_TEXT,
      });
    }
    expect(Number((await db.pool.query('SELECT count(*) FROM assistant.users')).rows[0].count)).toBe(users);
  });

  it('pairs a stranger by code under the pairing policy: a new person with memories of their own', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    expect(await admit(db.pool, { channel: 'telegram', externalId: '202', text: 'hello', now: at(4) })).toEqual({
      kind: 'pairing-reply',
      reply: PAIRING_PROMPT,
    });
    const issued = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Ben', now: at(4) });
    const typed = ` ${issued.code.toLowerCase().replace('-', ' ')} `;
    const paired = await admit(db.pool, { channel: 'telegram', externalId: '202', text: typed, now: at(5) });
    expect(paired).toMatchObject({ kind: 'pairing-reply', reply: expect.stringContaining('You are paired, Ben') });
    const ben = (paired as { pairedUserId: string }).pairedUserId;
    expect(ben).not.toBe(owner);
    expect(await admit(db.pool, { channel: 'telegram', externalId: '202', text: 'hi', now: at(6) })).toEqual({
      kind: 'person',
      userId: ben,
    });
    await remember(db.pool, ben, { content: 'Ben likes sailing' });
    await remember(db.pool, owner, { content: 'The owner likes chess' });
    expect((await recall(db.pool, ben, 'likes')).map((m) => m.content)).toEqual(['Ben likes sailing']);
    expect((await recall(db.pool, owner, 'likes')).map((m) => m.content)).toEqual(['The owner likes chess']);
    // Used once: the same code from another stranger is wrong.
    expect(await admit(db.pool, { channel: 'telegram', externalId: '203', text: issued.code, now: at(6) })).toEqual({
      kind: 'pairing-reply',
      reply: WRONG_CODE_TEXT,
    });
  });

  it('refuses an expired code, and a code whose sender already paired is just a message', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    const issued = await issuePairingCode(db.pool, {
      callerUserId: owner,
      personName: 'Cleo',
      minutes: 10,
      now: at(10),
    });
    expect(await admit(db.pool, { channel: 'telegram', externalId: '204', text: issued.code, now: at(20) })).toEqual({
      kind: 'pairing-reply',
      reply: WRONG_CODE_TEXT,
    });
    const inTime = await admit(db.pool, { channel: 'telegram', externalId: '204', text: issued.code, now: at(19) });
    expect(inTime.kind).toBe('pairing-reply');
    expect((inTime as { pairedUserId?: string }).pairedUserId).toBeDefined();
  });

  it('pairs a second channel to the same person with a code they issue for themselves', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    await setDmPolicy(db.pool, { channel: 'api', policy: 'pairing' });
    const first = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Dana', now: at(30) });
    const dana = (await admit(db.pool, { channel: 'telegram', externalId: '205', text: first.code, now: at(30) })) as {
      pairedUserId: string;
    };
    const own = await issuePairingCode(db.pool, { callerUserId: dana.pairedUserId, forSelf: true, now: at(31) });
    expect(own.for).toEqual({ userId: dana.pairedUserId });
    expect(await admit(db.pool, { channel: 'api', externalId: 'dana-app', text: 'hi', now: at(31) })).toEqual({
      kind: 'pairing-reply',
      reply: PAIRING_PROMPT,
    });
    const again = await admit(db.pool, { channel: 'api', externalId: 'dana-app', text: own.code, now: at(32) });
    expect(again).toMatchObject({ kind: 'pairing-reply', pairedUserId: dana.pairedUserId });
    expect(await admit(db.pool, { channel: 'api', externalId: 'dana-app', text: 'hi', now: at(33) })).toEqual({
      kind: 'person',
      userId: dana.pairedUserId,
    });
    await setDmPolicy(db.pool, { channel: 'api', policy: 'open' });
  });

  it('pairs the owner’s other channel with the owner’s own code, even under the owner policy', async () => {
    await setDmPolicy(db.pool, { channel: 'api', policy: 'owner' });
    const own = await issuePairingCode(db.pool, { callerUserId: owner, forSelf: true, now: at(40) });
    const paired = await admit(db.pool, { channel: 'api', externalId: 'owner-app', text: own.code, now: at(41) });
    expect(paired).toMatchObject({ kind: 'pairing-reply', pairedUserId: owner });
    expect(await admit(db.pool, { channel: 'api', externalId: 'owner-app', text: 'x', now: at(42) })).toEqual({
      kind: 'owner',
      userId: owner,
    });
    await setDmPolicy(db.pool, { channel: 'api', policy: 'open' });
  });

  it('limits wrong codes per sender: after the limit even a good code is not looked at, until the hour passes', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    for (let i = 0; i < MAX_ATTEMPTS_PER_SENDER; i++) {
      const wrong = await admit(db.pool, { channel: 'telegram', externalId: '206', text: 'ZZZZ-ZZZZ', now: at(50) });
      expect(wrong).toEqual({ kind: 'pairing-reply', reply: WRONG_CODE_TEXT });
    }
    const good = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Eve', now: at(50) });
    expect(await admit(db.pool, { channel: 'telegram', externalId: '206', text: good.code, now: at(51) })).toEqual({
      kind: 'pairing-reply',
      reply: LIMITED_TEXT,
    });
    const later = new Date(at(50).getTime() + 61 * 60_000);
    const { code } = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Eve', now: later });
    const paired = await admit(db.pool, { channel: 'telegram', externalId: '206', text: code, now: later });
    expect((paired as { pairedUserId?: string }).pairedUserId).toBeDefined();
  });

  it('lets listed ids in as people under an allow list, and no one else', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'allowlist', allow: ['300', '301'] });
    const listed = await admit(db.pool, { channel: 'telegram', externalId: '300', text: 'hi', now: at(55) });
    expect(listed.kind).toBe('person');
    const again = await admit(db.pool, { channel: 'telegram', externalId: '300', text: 'hi', now: at(56) });
    expect(again).toEqual(listed);
    expect(await admit(db.pool, { channel: 'telegram', externalId: '302', text: 'hi', now: at(56) })).toEqual({
      kind: 'refused',
      reply: REFUSAL_TEXT,
    });
  });

  it('keeps the API entry open by default (its callers hold the key): each id its own user', async () => {
    const a = await admit(db.pool, { channel: 'api', externalId: 'app-a', text: 'hi', now: at(57) });
    const b = await admit(db.pool, { channel: 'api', externalId: 'app-b', text: 'hi', now: at(57) });
    expect(a.kind).toBe('person');
    expect((a as { userId: string }).userId).not.toBe((b as { userId: string }).userId);
  });

  it('names the field of a bad channel or id', async () => {
    await expectFieldError(() => admit(db.pool, { channel: 'fax', externalId: '1', text: '', now: at(0) }), 'channel');
    await expectFieldError(
      () => admit(db.pool, { channel: 'telegram', externalId: 'abc', text: '', now: at(0) }),
      'externalId',
    );
  });
});
