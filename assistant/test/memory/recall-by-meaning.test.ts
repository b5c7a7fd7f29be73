// Recall by meaning over 10,000 and 25,000 memories on a real Postgres 17 without pgvector (the real[] fallback): a
// memory three years older than all the newer ones, found by its embedding alone; every memory is compared, by the
// sign bits of its embedding (migration 27, kept by a trigger), not only the newest 20,000 as before.
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

  it('finds an old memory behind 25,000 newer ones: every embedded memory is compared, by its sign bits', async () => {
    const userId = await createUser(db.pool, 'meaning-every');
    const old = await loadOldAndMany(db.pool, userId, embeddings.embedder, 25_000, 256);
    const found = await assistant.recall(db.pool, userId, OLD_MEMORY_TEXT, { embedder: embeddings.embedder });
    expect(found.map((m) => m.id)).toEqual([old]);
  });

  it("keeps each embedding's sign bits, one a dimension, and none without an embedding", async () => {
    const { rows } = await db.pool.query(
      `SELECT assistant.embedding_signs('{0.5,-0.25,0,2}'::real[])::text AS signs,
              assistant.embedding_signs('{}'::real[]) AS empty`,
    );
    expect(rows[0]).toEqual({ signs: '1001', empty: null });
    const userId = await createUser(db.pool, 'signs');
    const plain = await assistant.remember(db.pool, userId, { content: 'no embedding here' });
    const { memory } = await assistant.rememberAndEmbed(db.pool, userId, { content: 'embedded' }, embeddings.embedder);
    const stored = await db.pool.query(
      `SELECT id, bit_length(embedding_signs) AS bits,
              embedding_signs = assistant.embedding_signs(embedding) AS agrees
         FROM assistant.memories WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[plain.id, memory.id]],
    );
    expect(stored.rows.map((r) => [Number(r.id), r.bits, r.agrees])).toEqual([
      [plain.id, null, null],
      [memory.id, 256, true],
    ]);
    // Written again with the embedding (here: a 2-dimension one), and only then.
    await db.pool.query(`UPDATE assistant.memories SET embedding = '{-1,1}' WHERE id = $1`, [memory.id]);
    await db.pool.query(`UPDATE assistant.memories SET importance = 5 WHERE id = $1`, [memory.id]);
    const updated = await db.pool.query(`SELECT embedding_signs::text AS signs FROM assistant.memories WHERE id = $1`, [
      memory.id,
    ]);
    expect(updated.rows[0].signs).toBe('01');
  });
});
