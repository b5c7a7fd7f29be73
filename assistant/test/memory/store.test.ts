// Memory CRUD on a real Postgres 17: updates recompute what search sees, users are kept apart, bad input is named.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('memory store', () => {
  it('updates and forgets a memory, recomputing what search sees', async () => {
    const userId = await newUser('update');
    const memory = await assistant.remember(db.pool, userId, {
      content: 'My dentist is Dr. Berger',
      tags: 'health, appointments',
    });
    expect(memory.tags).toEqual(['health', 'appointments']);
    const updated = await assistant.updateMemory(db.pool, userId, memory.id, {
      content: 'My dentist is Dr. Novak',
      people: ['Dr. Novak'],
    });
    expect(updated.content).toBe('My dentist is Dr. Novak');
    expect(updated.tags).toEqual(['health', 'appointments']);
    expect(await assistant.recall(db.pool, userId, 'Berger')).toEqual([]);
    expect((await assistant.recall(db.pool, userId, 'Novak')).map((m) => m.id)).toEqual([memory.id]);
    const forgotten = await assistant.forgetMemory(db.pool, userId, memory.id);
    expect(forgotten.id).toBe(memory.id);
    await expectFieldError(() => assistant.getMemory(db.pool, userId, memory.id), 'memoryId', 'notFound');
  });

  it("keeps users apart: no reading, changing or forgetting another user's memory", async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const secret = await assistant.remember(db.pool, alice, {
      content: "Alice's safe code is 4711",
      people: ['Alice'],
    });
    expect(await assistant.recall(db.pool, bob, 'safe code 4711 Alice')).toEqual([]);
    await expectFieldError(() => assistant.getMemory(db.pool, bob, secret.id), 'memoryId', 'notFound');
    await expectFieldError(
      () => assistant.updateMemory(db.pool, bob, secret.id, { content: 'hacked' }),
      'memoryId',
      'notFound',
    );
    await expectFieldError(() => assistant.forgetMemory(db.pool, bob, secret.id), 'memoryId', 'notFound');
    expect((await assistant.getMemory(db.pool, alice, secret.id)).content).toBe("Alice's safe code is 4711");
  });

  it('rejects bad memory input, naming the field', async () => {
    const userId = await newUser('bad-memory');
    await expectFieldError(() => assistant.remember(db.pool, 'not-a-uuid', { content: 'x' }), 'userId');
    await expectFieldError(
      () => assistant.remember(db.pool, '00000000-0000-4000-8000-000000000000', { content: 'x' }),
      'userId',
    );
    await expectFieldError(() => assistant.remember(db.pool, userId, { content: '   ' }), 'content');
    await expectFieldError(() => assistant.remember(db.pool, userId, { content: 'x', importance: 9 }), 'importance');
    await expectFieldError(() => assistant.remember(db.pool, userId, { content: 'x', kind: 'gossip' }), 'kind');
    await expectFieldError(() => assistant.remember(db.pool, userId, { content: 'x', tags: [1, 2] }), 'tags');
    await expectFieldError(() => assistant.recall(db.pool, userId, ''), 'query');
    await expectFieldError(() => assistant.recall(db.pool, userId, 'x', { limit: 0 }), 'limit');
    await expectFieldError(() => assistant.forgetMemory(db.pool, userId, 'one'), 'memoryId');
  });
});
