// The owner's list of people on a real Postgres 17: listed with their identities, removed with their data kept (they
// can no longer talk) or purged; only the owner may list or remove.
import { beforeAll, describe, expect, it } from 'vitest';
import { updateInstanceSettings } from '../../src/settings/settings';
import { remember } from '../../src/memory';
import { admit, issuePairingCode, listPeople, removePerson, setDmPolicy, getDmPolicy } from '../../src/people';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const now = new Date('2026-11-29T10:00:00Z');
let owner = '';

async function pair(name: string, chatId: string): Promise<string> {
  const { code } = await issuePairingCode(db.pool, { callerUserId: owner, personName: name, now });
  const result = await admit(db.pool, { channel: 'telegram', externalId: chatId, text: code, now });
  return (result as { pairedUserId: string }).pairedUserId;
}

beforeAll(async () => {
  await updateInstanceSettings(db.pool, { ownerTelegramChatId: '100' });
  owner = ((await admit(db.pool, { channel: 'telegram', externalId: '100', text: '', now })) as { userId: string })
    .userId;
  await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
});

describe('people', () => {
  it('lists the people with the identities they talk from; only for the owner', async () => {
    const ana = await pair('Ana', '201');
    const people = await listPeople(db.pool, owner);
    expect(people).toEqual([
      { userId: ana, name: 'Ana', addedAt: now.toISOString(), addedBy: 'pairing', identities: ['telegram:201'] },
    ]);
    await expectFieldError(() => listPeople(db.pool, ana), 'userId');
  });

  it('removes a person: they are a stranger again, their data is kept', async () => {
    const ben = await pair('Ben', '202');
    await remember(db.pool, ben, { content: 'Ben likes sailing' });
    await expectFieldError(() => removePerson(db.pool, { callerUserId: ben, person: 'Ben', now }), 'callerUserId');
    const removed = await removePerson(db.pool, { callerUserId: owner, person: 'ben', now });
    expect(removed).toEqual({ userId: ben, name: 'Ben', purged: false, identitiesRemoved: ['telegram:202'] });
    expect((await admit(db.pool, { channel: 'telegram', externalId: '202', text: 'hi', now })).kind).toBe(
      'pairing-reply',
    );
    const kept = await db.pool.query('SELECT count(*) FROM assistant.memories WHERE user_id = $1', [ben]);
    expect(Number(kept.rows[0].count)).toBe(1);
    expect((await listPeople(db.pool, owner)).map((p) => p.name)).toEqual(['Ana']);
  });

  it('purges a person: their user and everything of theirs are gone, and they leave the allow list', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'allowlist', allow: ['300', '301'] });
    const cleo = (
      (await admit(db.pool, { channel: 'telegram', externalId: '300', text: 'hi', now })) as { userId: string }
    ).userId;
    await remember(db.pool, cleo, { content: 'Cleo is in Graz' });
    const removed = await removePerson(db.pool, { callerUserId: owner, person: cleo, purge: true, now });
    expect(removed).toMatchObject({ purged: true, identitiesRemoved: ['telegram:300'] });
    expect((await db.pool.query('SELECT 1 FROM assistant.users WHERE id = $1', [cleo])).rowCount).toBe(0);
    expect((await db.pool.query('SELECT 1 FROM assistant.memories WHERE user_id = $1', [cleo])).rowCount).toBe(0);
    expect((await getDmPolicy(db.pool, 'telegram')).allow).toEqual(['301']);
    expect((await admit(db.pool, { channel: 'telegram', externalId: '300', text: 'hi', now })).kind).toBe('refused');
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
  });

  it('names the field: no such person, the owner, a bad purge', async () => {
    await expectFieldError(
      () => removePerson(db.pool, { callerUserId: owner, person: 'Nobody', now }),
      'person',
      'notFound',
    );
    await expectFieldError(() => removePerson(db.pool, { callerUserId: owner, person: '', now }), 'person');
    await expectFieldError(
      () => removePerson(db.pool, { callerUserId: owner, person: 'Ana', purge: 'yes', now }),
      'purge',
    );
  });
});
