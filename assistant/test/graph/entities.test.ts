// Entities merged by name and alias on a real Postgres 17: known aliases, a person's first or last name (only when
// unambiguous), a full name for a person known by one name, the user as one reserved entity.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);
const entityCount = async (userId: string) =>
  (await db.pool.query('SELECT count(*)::int AS n FROM assistant.entities WHERE user_id = $1', [userId])).rows[0].n;

describe('entities merged by name and alias', () => {
  it('merges a known alias and a unique first or last name of a person', async () => {
    const userId = await newUser('alias');
    const stefan = await assistant.upsertEntity(db.pool, userId, {
      name: 'Stefan Huber',
      type: 'person',
      aliases: ['Steff'],
    });
    expect(stefan).toMatchObject({ created: true, aliases: ['Steff'] });
    const byAlias = await assistant.upsertEntity(db.pool, userId, { name: ' steff ', summary: 'My accountant' });
    expect(byAlias).toMatchObject({ id: stefan.id, name: 'Stefan Huber', summary: 'My accountant', created: false });
    const byFirstName = await assistant.resolveEntity(db.pool, userId, { name: 'Stefan', type: 'person' });
    expect(byFirstName).toMatchObject({ id: stefan.id, mergedFrom: 'Stefan', aliases: ['Steff', 'Stefan'] });
    expect((await assistant.findEntity(db.pool, userId, 'STEFAN'))?.id).toBe(stefan.id);
    // a company of the same word is no person: its own entity
    const company = await assistant.upsertEntity(db.pool, userId, { name: 'Huber & Partner', type: 'company' });
    expect(company.id).not.toBe(stefan.id);
    expect(await entityCount(userId)).toBe(2);
  });

  it('keeps an ambiguous short name apart, and upgrades a one-word person to the full name', async () => {
    const userId = await newUser('ambiguous');
    await assistant.upsertEntity(db.pool, userId, { name: 'Anna Berger', type: 'person' });
    await assistant.upsertEntity(db.pool, userId, { name: 'Anna Novak', type: 'person' });
    const anna = await assistant.resolveEntity(db.pool, userId, { name: 'Anna', type: 'person' });
    expect(anna).toMatchObject({ name: 'Anna', created: true });
    const ben = await assistant.upsertEntity(db.pool, userId, { name: 'Ben', type: 'person' });
    const full = await assistant.upsertEntity(db.pool, userId, { name: 'Ben Weber', type: 'person' });
    expect(full).toMatchObject({ id: ben.id, name: 'Ben Weber', aliases: ['Ben'], created: false });
    // an alias another entity already has is not added twice
    const other = await assistant.upsertEntity(db.pool, userId, { name: 'Benjamin', type: 'person', aliases: ['Ben'] });
    expect(other.aliases).toEqual([]);
  });

  it('takes "me", "I" and "the user" as the user, one entity', async () => {
    const userId = await newUser('me');
    const me = await assistant.resolveEntity(db.pool, userId, { name: 'me' });
    expect(me).toMatchObject({ name: assistant.USER_ENTITY_NAME, type: 'person' });
    expect((await assistant.resolveEntity(db.pool, userId, { name: 'I' })).id).toBe(me.id);
    expect((await assistant.resolveEntity(db.pool, userId, { name: 'The User' })).id).toBe(me.id);
    await expectFieldError(() => assistant.upsertEntity(db.pool, userId, { name: 'X', aliases: [3] }), 'aliases');
  });
});
