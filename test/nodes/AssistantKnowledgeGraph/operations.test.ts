// The Assistant Knowledge Graph node's operations on a real Postgres 17, driven through the shared fake
// IExecuteFunctions.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';

import { AssistantKnowledgeGraph } from '../../../nodes/AssistantKnowledgeGraph/AssistantKnowledgeGraph.node';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'graph-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantKnowledgeGraph(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output;
}

describe('Assistant Knowledge Graph description', () => {
  it('is a tool on the postgres credential, every operation with an action', () => {
    const { description } = nodeVersion(new AssistantKnowledgeGraph());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([{ name: 'postgres', required: true }]);
    expect(description.icon).toBe('file:assistantKnowledgeGraph.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('Assistant Knowledge Graph operations', () => {
  it('relate creates both entities; a first name finds the full name with its neighbours', async () => {
    const relation = { from: 'Stefan Huber', relation: 'manages', to: 'Vienna office', validFrom: '', validTo: '' };
    const [related] = await run([{ operation: 'relate', userId, ...relation }]);
    expect(related.pairedItem).toEqual({ item: 0 });
    const [graph] = await run([{ operation: 'query', userId, name: 'stefan', depth: 2, includeEnded: false }]);
    expect(graph.json).toMatchObject({
      entity: { name: 'Stefan Huber' },
      neighbours: [{ name: 'Vienna office', depth: 1 }],
    });
  });

  it('an ended relation is left out unless Include Ended Relations is on', async () => {
    const relation = { from: 'Mia', relation: 'works_at', to: 'Globex', validFrom: '', validTo: '' };
    const [related] = await run([{ operation: 'relate', userId, ...relation }]);
    const relationId = (related.json.relation as { id: number }).id;
    await run([{ operation: 'endRelation', userId, relationId, validTo: '' }]);
    const query = { operation: 'query', userId, name: 'Mia', depth: 1 };
    const [current] = await run([{ ...query, includeEnded: false }]);
    expect(current.json).toMatchObject({ neighbours: [] });
    const [history] = await run([{ ...query, includeEnded: true }]);
    expect(history.json).toMatchObject({ neighbours: [{ name: 'Globex' }] });
  });

  it('fails with a NodeOperationError naming the field and the item; continueOnFail gives {error, field}', async () => {
    const items = [
      { operation: 'upsertEntity', userId, name: 'Fine', entityType: '', summary: '' },
      { operation: 'upsertEntity', userId, name: '', entityType: '', summary: '' },
    ];
    const error = await run(items).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).context.itemIndex).toBe(1);
    expect((error as NodeOperationError).description).toBe('Check the "name" parameter.');
    const out = await run(items, { continueOnFail: true });
    expect(out[0].json).toMatchObject({ entity: { name: 'Fine' } });
    expect(out[1]).toEqual({
      json: { error: expect.stringMatching(/^name: /), field: 'name' },
      error: expect.any(NodeOperationError),
      pairedItem: { item: 1 },
    });
  });
});

describe('Assistant Knowledge Graph router', () => {
  const run1 = async (parameters: Parameters) => (await run([parameters]))[0].json;
  // A user of its own, so the counts are this test's.
  let userId: string;
  beforeAll(async () => {
    userId = (await resolveIdentity(db.pool, 'api', 'graph-router')).userId;
  });

  it('reaches every operation through the router', async () => {
    const entity = { operation: 'upsertEntity', userId, name: 'Acme', entityType: 'company', summary: '' };
    expect(await run1(entity)).toMatchObject({ entity: { name: 'Acme', type: 'company' } });
    const relation = { from: 'Ada Lovelace', relation: 'works at', to: 'Acme', validFrom: '', validTo: '' };
    const related = await run1({ operation: 'relate', userId, ...relation });
    expect(related).toMatchObject({ relation: { type: 'works_at', from: 'Ada Lovelace' } });
    expect(await run1({ operation: 'query', userId, name: 'Ada', depth: 1, includeEnded: false })).toMatchObject({
      entity: { name: 'Ada Lovelace' },
      neighbours: [{ name: 'Acme' }],
    });
    const relationId = (related.relation as { id: number }).id;
    const validTo = '2030-01-01T00:00:00Z';
    expect(await run1({ operation: 'endRelation', userId, relationId, validTo })).toMatchObject({
      relation: { id: relationId, validTo: '2030-01-01T00:00:00.000Z' },
    });
  });
});
