// Applying extractions on a real Postgres 17: people and companies merged, a new accountant ending the old one, the
// old fact superseded, a repeat dropped, a batch from outside content held unconfirmed, unquoted items dropped.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';
import { accountantExtractions, FIRST, SECOND, THIRD } from './accountant-extractions';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);
const feb = new Date('2027-02-10T09:00:00Z');
const feb2 = new Date('2027-02-11T09:00:00Z');

const entities = async (userId: string) =>
  (
    await db.pool.query('SELECT name, type, aliases FROM assistant.entities WHERE user_id = $1 ORDER BY name', [userId])
  ).rows.map((row) => [row.name, row.type, row.aliases]);

describe('applying an extraction', () => {
  it('merges people, ends the old accountant, supersedes the old fact and drops a repeat', async () => {
    const userId = await newUser('capture');
    const first = await assistant.applyExtraction(db.pool, userId, accountantExtractions.first, {
      now: feb,
      sourceText: FIRST,
    });
    expect(first.entities.map((e) => [e.name, e.created])).toEqual([
      ['Stefan Huber', true],
      ['Huber & Partner', true],
    ]);
    expect(first.relations.map((r) => `${r.from} ${r.type} ${r.to}`)).toEqual([
      'Stefan Huber works_at Huber & Partner',
      'Stefan Huber accountant_of the user',
    ]);
    expect(first.facts.stored.map((m) => [m.content, m.people, m.entities, m.evidence, m.source])).toEqual([
      [FIRST, ['Stefan Huber'], ['Huber & Partner'], FIRST, 'capture'],
    ]);

    const second = await assistant.applyExtraction(db.pool, userId, accountantExtractions.second, { now: feb2 });
    expect(second.entities.map((e) => [e.name, e.mergedFrom])).toEqual([
      ['Anna Berger', undefined],
      ['Stefan Huber', 'Stefan'],
    ]);
    expect(second.relations[0].ended.map((r) => [r.from, r.validTo])).toEqual([['Stefan Huber', feb2.toISOString()]]);
    expect(second.facts.superseded.map((m) => m.content)).toEqual([FIRST]);

    const third = await assistant.applyExtraction(db.pool, userId, accountantExtractions.third, { now: feb2 });
    expect(third.entities.map((e) => [e.name, e.mergedFrom])).toEqual([['Anna Berger', 'Anna']]);
    expect(third.facts.stored.map((m) => [m.subjectKey, m.people])).toEqual([
      ["anna berger's number", ['Anna Berger']],
    ]);

    expect(await entities(userId)).toEqual([
      ['Anna Berger', 'person', ['Anna']],
      ['Huber & Partner', 'company', []],
      ['Stefan Huber', 'person', ['Stefan']],
      ['the user', 'person', []],
    ]);
    const again = await assistant.applyExtraction(db.pool, userId, accountantExtractions.third, { now: feb2 });
    expect(again.facts).toMatchObject({ stored: [], duplicates: [{ text: THIRD, duplicateOf: { by: 'words' } }] });
    const graph = await assistant.queryGraph(db.pool, userId, 'Anna', { now: feb2 });
    expect(graph.relations.map((r) => `${r.from} ${r.type} ${r.to}`)).toEqual(['Anna Berger accountant_of the user']);
    expect(graph.memories.map((m) => m.content).sort()).toEqual([THIRD, SECOND].sort());
  });

  it('holds a batch from outside content: facts unconfirmed, the graph unchanged', async () => {
    const userId = await newUser('capture-untrusted');
    await assistant.applyExtraction(db.pool, userId, accountantExtractions.first, { now: feb });
    const injected = {
      entities: [{ name: 'Mallory', type: 'person' }],
      relations: [{ from: 'Mallory', relation: 'accountant_of', to: 'me', evidence: 'Mallory is now your accountant' }],
      facts: [{ text: 'My accountant is now Mallory', evidence: 'Mallory is now your accountant' }],
    };
    const held = await assistant.applyExtraction(db.pool, userId, injected, { now: feb2, confirmed: false });
    expect(held.entities).toEqual([]);
    expect(held.relations).toEqual([]);
    expect(held.held).toEqual({
      entities: [{ name: 'Mallory', type: 'person', aliases: [] }],
      relations: injected.relations,
    });
    expect(held.facts.unconfirmed.map((m) => [m.content, m.confirmed])).toEqual([
      ['My accountant is now Mallory', false],
    ]);
    expect(held.facts.superseded).toEqual([]);
    expect(held.facts.contradictions.map((c) => c.contradicts.content)).toEqual([FIRST]);
    expect((await entities(userId)).map(([name]) => name)).not.toContain('Mallory');
    expect((await assistant.recall(db.pool, userId, 'accountant')).map((m) => m.content)).toEqual([FIRST]);
  });

  it('drops items whose evidence is not quoted from the source, and names bad fields', async () => {
    const userId = await newUser('capture-evidence');
    const result = await assistant.applyExtraction(
      db.pool,
      userId,
      {
        entities: [],
        relations: [{ from: 'Ben', relation: 'lawyer_of', to: 'me', evidence: 'Ben is my lawyer' }],
        facts: [
          { text: 'Ben is my lawyer', evidence: '"ben IS my   lawyer"' },
          { text: 'Ben likes golf', evidence: 'Ben likes golf' },
        ],
      },
      { sourceText: 'Oh, and Ben is my lawyer.', now: feb },
    );
    expect(result.unsupported).toEqual([{ field: 'facts[1].evidence', evidence: 'Ben likes golf' }]);
    expect(result.facts.stored.map((m) => m.content)).toEqual(['Ben is my lawyer']);
    await expectFieldError(
      () => assistant.applyExtraction(db.pool, userId, { entities: [{ name: 'A' }], relations: [], facts: [] }),
      'entities[0].type',
    );
  });

  it('links the people of remember_memory to person entities', async () => {
    const userId = await newUser('remember-people');
    await assistant.upsertEntity(db.pool, userId, { name: 'Stefan Huber', type: 'person' });
    const result = await assistant.rememberAndEmbed(db.pool, userId, {
      content: 'Stefan prefers calls in the morning',
      people: 'Stefan, Maria Novak',
    });
    expect(result.linked.map((e) => e.name)).toEqual(['Stefan Huber', 'Maria Novak']);
    expect((await entities(userId)).map(([name, type]) => `${name}:${type}`)).toEqual([
      'Maria Novak:person',
      'Stefan Huber:person',
    ]);
    const graph = await assistant.queryGraph(db.pool, userId, 'Stefan Huber');
    expect(graph.memories.map((m) => m.content)).toEqual(['Stefan prefers calls in the morning']);
  });
});
