// Memory CRUD on a real Postgres 17: updates recompute what search sees, users are kept apart, bad input is named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import * as assistant from '../../src';
import { startAssistantDatabase, type TestDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await startAssistantDatabase();
  pool = db.pool;
});
afterAll(async () => {
  await db?.stop();
});

const newUser = (name: string) => createUser(pool, name);

describe('memory store', () => {
  it('updates and forgets a memory, recomputing what search sees', async () => {
    const userId = await newUser('update');
    const memory = await assistant.remember(pool, userId, {
      content: 'My dentist is Dr. Berger',
      tags: 'health, appointments',
    });
    expect(memory.tags).toEqual(['health', 'appointments']);
    const updated = await assistant.updateMemory(pool, userId, memory.id, {
      content: 'My dentist is Dr. Novak',
      people: ['Dr. Novak'],
    });
    expect(updated.content).toBe('My dentist is Dr. Novak');
    expect(updated.tags).toEqual(['health', 'appointments']);
    expect(await assistant.recall(pool, userId, 'Berger')).toEqual([]);
    expect((await assistant.recall(pool, userId, 'Novak')).map((m) => m.id)).toEqual([memory.id]);
    const forgotten = await assistant.forgetMemory(pool, userId, memory.id);
    expect(forgotten.id).toBe(memory.id);
    await expectFieldError(() => assistant.getMemory(pool, userId, memory.id), 'memoryId', 'notFound');
  });

  it("keeps users apart: no reading, changing or forgetting another user's memory", async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const secret = await assistant.remember(pool, alice, { content: "Alice's safe code is 4711", people: ['Alice'] });
    expect(await assistant.recall(pool, bob, 'safe code 4711 Alice')).toEqual([]);
    await expectFieldError(() => assistant.getMemory(pool, bob, secret.id), 'memoryId', 'notFound');
    await expectFieldError(
      () => assistant.updateMemory(pool, bob, secret.id, { content: 'hacked' }),
      'memoryId',
      'notFound',
    );
    await expectFieldError(() => assistant.forgetMemory(pool, bob, secret.id), 'memoryId', 'notFound');
    expect((await assistant.getMemory(pool, alice, secret.id)).content).toBe("Alice's safe code is 4711");
  });

  it('rejects bad memory input, naming the field', async () => {
    const userId = await newUser('bad-memory');
    await expectFieldError(() => assistant.remember(pool, 'not-a-uuid', { content: 'x' }), 'userId');
    await expectFieldError(
      () => assistant.remember(pool, '00000000-0000-4000-8000-000000000000', { content: 'x' }),
      'userId',
    );
    await expectFieldError(() => assistant.remember(pool, userId, { content: '   ' }), 'content');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', importance: 9 }), 'importance');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', kind: 'gossip' }), 'kind');
    await expectFieldError(() => assistant.remember(pool, userId, { content: 'x', tags: [1, 2] }), 'tags');
    await expectFieldError(() => assistant.recall(pool, userId, ''), 'query');
    await expectFieldError(() => assistant.recall(pool, userId, 'x', { limit: 0 }), 'limit');
    await expectFieldError(() => assistant.forgetMemory(pool, userId, 'one'), 'memoryId');
  });
});
