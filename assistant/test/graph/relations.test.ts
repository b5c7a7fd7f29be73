// Relations with validity times on a real Postgres 17: a single-valued one replaces the old value at `now`, a
// repeat is no duplicate, ended relations stay as history.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);
const march = new Date('2027-03-01T00:00:00Z');
const rows = async (userId: string) =>
  (
    await db.pool.query(
      `SELECT f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to FROM assistant.relations r
         JOIN assistant.entities f ON f.id = r.from_entity_id JOIN assistant.entities t ON t.id = r.to_entity_id
        WHERE r.user_id = $1 ORDER BY r.id`,
      [userId],
    )
  ).rows.map((r) => [
    r.from_name,
    r.type,
    r.to_name,
    r.valid_from?.toISOString() ?? null,
    r.valid_to?.toISOString() ?? null,
  ]);

describe('relations', () => {
  it('ends the old holder of a single-valued relation when a new one starts', async () => {
    const userId = await newUser('holder');
    const jan = new Date('2027-01-10T00:00:00Z');
    await assistant.relate(
      db.pool,
      userId,
      { from: 'Stefan Huber', relation: 'accountant of', to: 'me', validFrom: jan },
      jan,
    );
    const again = await assistant.relate(
      db.pool,
      userId,
      { from: 'Stefan Huber', relation: 'accountant_of', to: 'I' },
      march,
    );
    expect(again).toMatchObject({ created: false, ended: [] });
    const anna = await assistant.relate(
      db.pool,
      userId,
      {
        from: 'Anna Berger',
        relation: 'accountant_of',
        to: 'the user',
        validFrom: march,
        evidence: 'Anna replaces Stefan',
      },
      march,
    );
    expect(anna.created).toBe(true);
    expect(anna.ended.map((r) => [r.from, r.validTo])).toEqual([['Stefan Huber', march.toISOString()]]);
    // not single-valued: both stay current
    await assistant.relate(db.pool, userId, { from: 'Anna Berger', relation: 'friend_of', to: 'me' }, march);
    await assistant.relate(db.pool, userId, { from: 'Stefan Huber', relation: 'friend_of', to: 'me' }, march);
    expect(await rows(userId)).toEqual([
      ['Stefan Huber', 'accountant_of', 'the user', jan.toISOString(), march.toISOString()],
      ['Anna Berger', 'accountant_of', 'the user', march.toISOString(), null],
      ['Anna Berger', 'friend_of', 'the user', null, null],
      ['Stefan Huber', 'friend_of', 'the user', null, null],
    ]);
    const evidence = await db.pool.query(`SELECT evidence FROM assistant.relations WHERE id = $1`, [anna.id]);
    expect(evidence.rows[0].evidence).toBe('Anna replaces Stefan');
  });

  it('ends the old target of a single-target relation (lives_in)', async () => {
    const userId = await newUser('target');
    await assistant.relate(db.pool, userId, { from: 'me', relation: 'lives_in', to: 'Vienna' }, march);
    const graz = await assistant.relate(db.pool, userId, { from: 'me', relation: 'lives_in', to: 'Graz' }, march);
    expect(graz.ended.map((r) => r.to)).toEqual(['Vienna']);
    const current = await assistant.queryGraph(db.pool, userId, 'me', { depth: 1, now: march });
    expect(current.relations.map((r) => r.to)).toEqual(['Graz']);
  });
});
