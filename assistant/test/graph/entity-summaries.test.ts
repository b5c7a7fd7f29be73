// Entity summaries rewritten from what is kept, on a real Postgres 17 and a moved clock: every mentioned entity on a
// first pass (most mentioned first, from its dated memories and current relations), then only those with memories
// created or updated since the previous run; the limit held; folded, superseded and unconfirmed memories and the user
// themselves left out; a bad summary refused naming the field, the old one kept.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const now = new Date('2027-06-01T01:30:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const day = (at: Date) => at.toISOString().slice(0, 10);

type Seen = Parameters<assistant.SummariseEntity>[0];

/** A summarise that records what it was given and answers with the entity's name and its number of facts. */
function recorder() {
  const seen: Seen[] = [];
  const summarise: assistant.SummariseEntity = async (entity) => {
    seen.push(entity);
    return `${entity.name}: ${entity.facts.length} facts`;
  };
  return { seen, summarise };
}

/** A memory naming `people`, written (and last changed) at `at`. */
async function stored(userId: string, content: string, at: Date, people: string[] = []) {
  const memory = await assistant.remember(db.pool, userId, { content, people });
  await db.pool.query('UPDATE assistant.memories SET created_at = $2, updated_at = $2 WHERE id = $1', [memory.id, at]);
  return memory;
}

const summaryOf = async (userId: string, name: string) => (await assistant.findEntity(db.pool, userId, name))?.summary;

/** Anna Berger (3 memories, the user's accountant), Stefan Huber (1, 40 days ago), Acme (1, 100 days ago), Maria. */
async function knownPeople(name: string) {
  const userId = await createUser(db.pool, name);
  for (const person of ['Anna Berger', 'Stefan Huber', 'Maria Gruber'])
    await assistant.upsertEntity(db.pool, userId, { name: person, type: 'person' });
  await assistant.upsertEntity(db.pool, userId, { name: 'Acme', type: 'company' });
  await assistant.relate(db.pool, userId, {
    from: 'Anna Berger',
    relation: 'accountant_of',
    to: 'the user',
    validFrom: '2027-02-11T00:00:00Z',
  });
  await assistant.relate(db.pool, userId, {
    from: 'Anna Berger',
    relation: 'worked_at',
    to: 'Acme',
    validTo: daysAgo(300),
  });
  await stored(userId, 'Anna Berger does my tax return', daysAgo(60), ['Anna Berger']);
  await stored(userId, 'Anna Berger wants the receipts by March', daysAgo(50), ['Anna Berger']);
  await stored(userId, 'Called Anna about the VAT refund', daysAgo(10), ['Anna Berger']);
  const stefan = await stored(userId, 'Stefan Huber climbs on Sundays', daysAgo(40), ['Stefan Huber']);
  await stored(userId, 'Acme ships anvils to Graz', daysAgo(100));
  const maria = await stored(userId, 'Maria Gruber owes me 20 euros', daysAgo(2), ['Maria Gruber']);
  await db.pool.query('UPDATE assistant.memories SET confirmed = false WHERE id = $1', [maria.id]);
  return { userId, stefan };
}

describe('refreshEntitySummaries', () => {
  it('summarises every mentioned entity on a first pass, most mentioned first, from its memories and relations', async () => {
    const { userId } = await knownPeople('entity-summaries-first');
    const { seen, summarise } = recorder();
    const names = await assistant.refreshEntitySummaries(db.pool, userId, { now, since: null, summarise });
    // Anna (3 mentions), then Stefan and Acme (1 each, the newer first); Maria's only memory is unconfirmed, and the
    // user's own entity is never summarised.
    expect(names).toEqual(['Anna Berger', 'Stefan Huber', 'Acme']);
    expect(seen[0]).toEqual({
      name: 'Anna Berger',
      type: 'person',
      facts: [
        `${day(daysAgo(60))}: Anna Berger does my tax return`,
        `${day(daysAgo(50))}: Anna Berger wants the receipts by March`,
        `${day(daysAgo(10))}: Called Anna about the VAT refund`,
        // The current relation only: the ended worked_at is not.
        'Anna Berger accountant of the user (since 2027-02-11)',
      ],
    });
    expect(seen[2]).toEqual({
      name: 'Acme',
      type: 'company',
      facts: [`${day(daysAgo(100))}: Acme ships anvils to Graz`],
    });
    expect(await summaryOf(userId, 'Anna Berger')).toBe('Anna Berger: 4 facts');
    expect(await summaryOf(userId, 'Maria Gruber')).toBeNull();
    const user = await db.pool.query(
      `SELECT summary FROM assistant.entities WHERE user_id = $1 AND name = 'the user'`,
      [userId],
    );
    expect(user.rows).toEqual([{ summary: null }]);
  });

  it('on a moved clock re-summarises only entities with memories created or updated since the last run', async () => {
    const { userId, stefan } = await knownPeople('entity-summaries-since');
    await assistant.refreshEntitySummaries(db.pool, userId, {
      now: daysAgo(30),
      since: null,
      summarise: recorder().summarise,
    });

    // Since 30 days ago: only Anna has a new memory (10 days ago).
    const later = recorder();
    expect(
      await assistant.refreshEntitySummaries(db.pool, userId, { now, since: daysAgo(30), summarise: later.summarise }),
    ).toEqual(['Anna Berger']);
    expect(later.seen.map((entity) => entity.name)).toEqual(['Anna Berger']);

    // Stefan's memory changed 5 days ago; Acme gets a memory that is folded at once (history, not a mention).
    await db.pool.query('UPDATE assistant.memories SET updated_at = $2 WHERE id = $1', [stefan.id, daysAgo(5)]);
    const folded = await stored(userId, 'Acme moved to Linz', daysAgo(3));
    await db.pool.query('UPDATE assistant.memories SET folded_at = $2, folded_into = $3 WHERE id = $1', [
      folded.id,
      daysAgo(1),
      stefan.id,
    ]);
    const superseded = await stored(userId, 'Acme is closed on Mondays', daysAgo(3));
    await db.pool.query('UPDATE assistant.memories SET superseded_at = $2 WHERE id = $1', [superseded.id, daysAgo(1)]);
    expect(
      await assistant.refreshEntitySummaries(db.pool, userId, {
        now,
        since: daysAgo(7),
        summarise: recorder().summarise,
      }),
    ).toEqual(['Stefan Huber']);
    // Nothing new since now: nothing is summarised and no summary changes.
    const none = recorder();
    expect(
      await assistant.refreshEntitySummaries(db.pool, userId, { now, since: now, summarise: none.summarise }),
    ).toEqual([]);
    expect(none.seen).toEqual([]);
    expect(await summaryOf(userId, 'Acme')).toBe('Acme: 1 facts');
  });

  it('summarises at most `limit` entities, the most mentioned, a long memory cut for the request', async () => {
    const { userId } = await knownPeople('entity-summaries-limit');
    await stored(userId, `Stefan Huber wrote: ${'blah '.repeat(1000)}`, daysAgo(20), ['Stefan Huber']);
    const { seen, summarise } = recorder();
    expect(await assistant.refreshEntitySummaries(db.pool, userId, { now, since: null, summarise, limit: 2 })).toEqual([
      'Anna Berger',
      'Stefan Huber',
    ]);
    expect(await summaryOf(userId, 'Acme')).toBeNull();
    expect(seen[1].facts.map((fact) => fact.length)).toEqual([12 + 30, 12 + 2000]);
  });

  it('refuses a bad summary naming the field, keeping the old one, and bad options naming theirs', async () => {
    const { userId } = await knownPeople('entity-summaries-bad');
    await assistant.upsertEntity(db.pool, userId, { name: 'Anna Berger', summary: 'My accountant' });
    const since = null;
    for (const answer of ['   ', 'x'.repeat(501)])
      await expectFieldError(
        () => assistant.refreshEntitySummaries(db.pool, userId, { now, since, summarise: async () => answer }),
        'entitySummary',
      );
    await expect(
      assistant.refreshEntitySummaries(db.pool, userId, { now, since, summarise: async () => '' }),
    ).rejects.toThrow('entitySummary: the summary of "Anna Berger" must be a text of 1 to 500 characters');
    expect(await summaryOf(userId, 'Anna Berger')).toBe('My accountant');
    // 500 characters are taken.
    await assistant.refreshEntitySummaries(db.pool, userId, {
      now,
      since,
      summarise: async () => 'y'.repeat(500),
      limit: 1,
    });
    expect(await summaryOf(userId, 'Anna Berger')).toBe('y'.repeat(500));

    const { summarise } = recorder();
    await expectFieldError(
      () => assistant.refreshEntitySummaries(db.pool, 'nobody', { now, since, summarise }),
      'userId',
    );
    await expectFieldError(
      () => assistant.refreshEntitySummaries(db.pool, userId, { now: new Date('x'), since, summarise }),
      'now',
    );
    await expectFieldError(
      () =>
        assistant.refreshEntitySummaries(db.pool, userId, { now, since: '2027-05-01' as unknown as Date, summarise }),
      'since',
    );
    await expectFieldError(
      () => assistant.refreshEntitySummaries(db.pool, userId, { now, since, summarise, limit: 0 }),
      'limit',
    );
    await expectFieldError(
      () =>
        assistant.refreshEntitySummaries(db.pool, userId, {
          now,
          since,
          summarise: 'write it' as unknown as assistant.SummariseEntity,
        }),
      'summarise',
    );
  });
});
