// Recall by meaning over 10,000 memories on a real Postgres 17 without pgvector (the real[] fallback): a memory
// three years older than the 10,000 newer ones, found by its embedding alone.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';
import { useFakeEmbeddings } from './fake-embedder';
import { loadOldAndMany, OLD_MEMORY_TEXT } from './many-memories';

const db = useAssistantDatabase();
const embeddings = useFakeEmbeddings({ key: 'sk-meaning', model: 'text-embedding-3-small', dimensions: 256 });

describe('recall by meaning without pgvector', () => {
  it('finds an old memory behind 10,000 newer ones by its embedding alone', async () => {
    const userId = await createUser(db.pool, 'meaning');
    const old = await loadOldAndMany(db.pool, userId, embeddings.embedder, 10_000, 256);
    expect(await assistant.vectorIndexDimensions(db.pool)).toBeNull();
    expect(await assistant.recall(db.pool, userId, OLD_MEMORY_TEXT)).toEqual([]);
    const found = await assistant.recallWithEmbedding(db.pool, userId, OLD_MEMORY_TEXT, {
      embedder: embeddings.embedder,
    });
    expect(found.embedding).toMatchObject({ status: 'used', dimensions: 256 });
    expect(found.memories.map((m) => m.id)).toEqual([old]);
  });
});
