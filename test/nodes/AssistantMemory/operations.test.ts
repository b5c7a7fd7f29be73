// The Assistant Memory node's operations on a real Postgres 17, driven through the shared fake
// IExecuteFunctions: parameters per item, errors that name the field and the item, continueOnFail.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';

import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { updateInput } from '../../../nodes/AssistantMemory/v1/helpers/updateInput';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'memory-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantMemory(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output;
}

describe('Assistant Memory description', () => {
  it('is a tool on the postgres credential, with an optional embeddings endpoint and the chat model for capture and consolidation', () => {
    const { description } = nodeVersion(new AssistantMemory());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([
      { name: 'postgres', required: true },
      { name: 'assistantEmbeddingsApi', required: false },
      {
        name: 'openAiApi',
        required: true,
        displayOptions: { show: { operation: ['captureMemories', 'consolidateMemories'] } },
      },
    ]);
    expect(description.icon).toBe('file:assistantMemory.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('updateInput', () => {
  it('leaves empty fields out and lets "none" empty a list or the source, never the content', () => {
    expect(updateInput({ content: 'none', tags: ' None ', source: 'none', people: '', importance: 4 })).toEqual({
      content: 'none',
      tags: [],
      source: null,
      importance: 4,
    });
  });
});

describe('Assistant Memory operations', () => {
  it('remember → update (empty keeps, "none" empties) → recall', async () => {
    const details = { people: 'Stefan Huber', entities: 'Vienna', importance: 4, kind: 'fact' };
    const [remembered] = await run([
      { operation: 'remember', userId, content: 'Stefan Huber runs the Vienna office', details },
    ]);
    expect(remembered.json.memory).toMatchObject({ people: ['Stefan Huber'], entities: ['Vienna'], importance: 4 });
    const memoryId = (remembered.json.memory as { id: number }).id;
    const updateFields = { content: '', people: '', entities: 'none' };
    const [kept] = await run([{ operation: 'update', userId, memoryId, updateFields }]);
    expect(kept.json.memory).toMatchObject({
      content: 'Stefan Huber runs the Vienna office',
      people: ['Stefan Huber'],
      entities: [],
    });
    const [recalled] = await run([{ operation: 'recall', userId, query: 'Who is Stefan?', limit: 5, kindFilter: '' }]);
    expect(recalled.json).toMatchObject({ count: 1, memories: [{ content: 'Stefan Huber runs the Vienna office' }] });
  });

  it('fails with a NodeOperationError naming the field', async () => {
    const error = await run([{ operation: 'recall', userId: '', query: 'x' }]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toMatch(/^userId: /);
    expect((error as NodeOperationError).description).toBe('Check the "userId" parameter.');
    expect((error as NodeOperationError).context.itemIndex).toBe(0);
  });

  it('with continueOnFail, reports each failing item as {error, field} and carries on', async () => {
    // The operation is the same for every item (n8n allows no expression there); the other parameters vary.
    const out = await run(
      [
        { operation: 'remember', userId, content: '', details: {} },
        { operation: 'remember', userId: 'not-a-uuid', content: 'x', details: {} },
        { operation: 'remember', userId, content: 'ok', details: {} },
      ],
      { continueOnFail: true },
    );
    expect(out[0].json).toEqual({ field: 'content', error: 'content: must be a non-empty string' });
    expect(out[1].json).toMatchObject({ field: 'userId' });
    expect(out[2].json.memory).toMatchObject({ content: 'ok' });
    const [missing] = await run([{ operation: 'forget', userId, memoryId: 123456 }], { continueOnFail: true });
    expect(missing.json).toMatchObject({ field: 'memoryId' });
    expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
  });
});

describe('Assistant Memory router', () => {
  const run1 = async (parameters: Parameters) => (await run([parameters]))[0].json;
  // A user of its own, so the counts are this test's.
  let userId: string;
  beforeAll(async () => {
    userId = (await resolveIdentity(db.pool, 'api', 'memory-router')).userId;
  });

  it('reaches every operation through the router', async () => {
    const remembered = await run1({ operation: 'remember', userId, content: 'Ada likes tea', details: {} });
    expect(remembered).toMatchObject({ memory: { content: 'Ada likes tea' }, embedding: { status: 'off' } });
    const memoryId = (remembered.memory as { id: number }).id;
    expect(await run1({ operation: 'get', userId, memoryId })).toMatchObject({ memory: { id: memoryId } });
    const updateFields = { importance: 5 };
    expect(await run1({ operation: 'update', userId, memoryId, updateFields })).toMatchObject({
      memory: { importance: 5 },
    });
    expect(await run1({ operation: 'recall', userId, query: 'tea', limit: 5, kindFilter: '' })).toMatchObject({
      query: 'tea',
      count: 1,
    });
    expect(await run1({ operation: 'recent', userId, limit: 5 })).toMatchObject({ count: 1 });
    expect(await run1({ operation: 'forget', userId, memoryId })).toMatchObject({ forgotten: { id: memoryId } });
  });
});
