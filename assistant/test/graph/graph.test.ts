// The knowledge graph on a real Postgres 17: entities unique per user, neighbourhoods, relations and their ends.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('knowledge graph', () => {
  it('keeps entities unique per user by normalised name, and per user only', async () => {
    const userId = await newUser('entities');
    const first = await assistant.upsertEntity(db.pool, userId, { name: 'Acme  GmbH', type: 'company' });
    const again = await assistant.upsertEntity(db.pool, userId, { name: ' acme gmbh ', summary: 'Makes anvils' });
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ name: 'Acme GmbH', type: 'company', summary: 'Makes anvils', created: false });
    const other = await assistant.upsertEntity(db.pool, await newUser('entities-2'), { name: 'Acme GmbH' });
    expect(other.id).not.toBe(first.id);
    await expectFieldError(() => assistant.upsertEntity(db.pool, userId, { name: 'X', type: 'alien' }), 'type');
  });

  it("returns an entity's neighbourhood to depth 2 with the memories that mention it", async () => {
    const userId = await newUser('graph');
    await assistant.upsertEntity(db.pool, userId, {
      name: 'Stefan Huber',
      type: 'person',
      summary: 'Climbing partner',
    });
    await assistant.relate(db.pool, userId, { from: 'Stefan Huber', relation: 'works at', to: 'Acme' });
    await assistant.relate(db.pool, userId, { from: 'Acme', relation: 'based_in', to: 'Vienna' });
    await assistant.relate(db.pool, userId, { from: 'Vienna', relation: 'capital_of', to: 'Austria' });
    await assistant.relate(db.pool, userId, { from: 'Maria', relation: 'married_to', to: 'Stefan Huber' });
    await assistant.relate(db.pool, userId, {
      from: 'Stefan Huber',
      relation: 'worked_at',
      to: 'OldCorp',
      validTo: '2020-01-01T00:00:00Z',
    });
    await assistant.remember(db.pool, userId, {
      content: 'Stefan Huber recommended the new crag',
      people: ['Stefan Huber'],
    });
    await assistant.remember(db.pool, userId, { content: 'Had coffee with Stefan Huber yesterday' });
    await assistant.remember(db.pool, userId, { content: 'Acme ships anvils' });

    const result = await assistant.queryGraph(db.pool, userId, 'Stefan');
    expect(result.entity).toMatchObject({ name: 'Stefan Huber', type: 'person', summary: 'Climbing partner' });
    expect(result.neighbours.map((n) => [n.name, n.depth])).toEqual([
      ['Acme', 1],
      ['Maria', 1],
      ['Vienna', 2],
    ]);
    expect(result.relations.map((r) => `${r.from} ${r.type} ${r.to}`).sort()).toEqual([
      'Acme based_in Vienna',
      'Maria married_to Stefan Huber',
      'Stefan Huber works_at Acme',
    ]);
    expect(result.memories.map((m) => m.content).sort()).toEqual([
      'Had coffee with Stefan Huber yesterday',
      'Stefan Huber recommended the new crag',
    ]);

    const shallow = await assistant.queryGraph(db.pool, userId, 'Stefan Huber', { depth: 1, includeEnded: true });
    expect(shallow.neighbours.map((n) => n.name).sort()).toEqual(['Acme', 'Maria', 'OldCorp']);
  });

  it('reuses an identical relation, ends relations, and validates times', async () => {
    const userId = await newUser('relations');
    const first = await assistant.relate(db.pool, userId, { from: 'Ann', relation: 'manages', to: 'Ben' });
    const second = await assistant.relate(db.pool, userId, { from: 'ann', relation: 'Manages', to: 'BEN' });
    expect(second).toMatchObject({ id: first.id, created: false });
    const ended = await assistant.endRelation(db.pool, userId, first.id);
    expect(ended.validTo).not.toBeNull();
    expect((await assistant.queryGraph(db.pool, userId, 'Ann')).neighbours).toEqual([]);
    await expectFieldError(
      () =>
        assistant.relate(db.pool, userId, {
          from: 'A',
          relation: 'x',
          to: 'B',
          validFrom: '2024-02-01T00:00:00Z',
          validTo: '2024-01-01T00:00:00Z',
        }),
      'validTo',
    );
    await expectFieldError(
      () => assistant.relate(db.pool, userId, { from: 'A', relation: 'x', to: 'B', validFrom: 'last week' }),
      'validFrom',
    );
    await expectFieldError(
      () => assistant.relate(db.pool, userId, { from: 'A', relation: 'drop;table', to: 'B' }),
      'relation',
    );
    await expectFieldError(() => assistant.queryGraph(db.pool, userId, 'Nobody At All'), 'name', 'notFound');
    await expectFieldError(() => assistant.queryGraph(db.pool, userId, 'Ann', { depth: 3 }), 'depth');
    const stranger = await newUser('stranger');
    await expectFieldError(() => assistant.endRelation(db.pool, stranger, first.id), 'relationId', 'notFound');
  });
});
