// The pgvector path of the optional vector index on PGlite (Postgres 17 in WebAssembly with its `vector` extension),
// reached by the product's own `pg` pool through pglite-socket: the migrations run unchanged, and enableVectorIndex
// adds the column, the trigger that keeps it equal to the real[] embedding, and the HNSW index.
import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { usePgliteDatabase } from '../pglite-database';
import { createUser } from '../helpers';

const db = usePgliteDatabase();

const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
};

async function insertEmbedded(pool: Pool, userId: string, content: string, embedding: number[]): Promise<number> {
  const memory = await assistant.remember(pool, userId, { content });
  await pool.query(`UPDATE assistant.memories SET embedding = $2::real[], embedding_model = 'm' WHERE id = $1`, [
    memory.id,
    embedding,
  ]);
  return memory.id;
}

const vectorOf = async (pool: Pool, id: number): Promise<string | null> =>
  (await pool.query('SELECT embedding_vector::text AS v FROM assistant.memories WHERE id = $1', [id])).rows[0].v;

describe('vector index on PGlite with pgvector', () => {
  it('runs every assistant migration', async () => {
    const { rows } = await db.pool.query('SELECT max(version)::int AS v FROM assistant.schema_migrations');
    expect(rows[0].v).toBe(assistant.migrations.at(-1)!.version);
  });

  it('adds the column, trigger and HNSW index, fills embeddings stored before, and keeps them in step', async () => {
    const userId = await createUser(db.pool, 'vector');
    const before = await insertEmbedded(db.pool, userId, 'stored before the index', unit([1, 2, 2]));
    const otherDimension = await insertEmbedded(db.pool, userId, 'another model size', unit([1, 1, 1, 1]));
    expect(await assistant.vectorExtensionAvailable(db.pool)).toBe(true);
    expect(await assistant.vectorIndexDimensions(db.pool)).toBeNull();

    expect(await assistant.enableVectorIndex(db.pool, 3)).toEqual({ pgvector: true, dimensions: 3 });
    expect(await assistant.vectorIndexDimensions(db.pool)).toBe(3);
    const column = await db.pool.query(
      `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = 'assistant.memories'::regclass AND attname = 'embedding_vector'`,
    );
    expect(column.rows).toEqual([{ type: 'vector(3)' }]);
    const index = await db.pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'assistant' AND indexname = 'memories_embedding_hnsw_idx'`,
    );
    expect(index.rows[0].indexdef).toMatch(/USING hnsw \(embedding_vector vector_cosine_ops\)/);
    const trigger = await db.pool.query(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'assistant.memories'::regclass AND NOT tgisinternal`,
    );
    expect(trigger.rows.map((r) => r.tgname)).toContain('memories_embedding_vector');

    expect(await vectorOf(db.pool, before)).toBe('[0.33333334,0.6666667,0.6666667]');
    expect(await vectorOf(db.pool, otherDimension)).toBeNull();
    const after = await insertEmbedded(db.pool, userId, 'stored after', unit([0, 0, 1]));
    expect(await vectorOf(db.pool, after)).toBe('[0,0,1]');
    await db.pool.query('UPDATE assistant.memories SET embedding = NULL WHERE id = $1', [after]);
    expect(await vectorOf(db.pool, after)).toBeNull();

    // Idempotent for the same dimension; another dimension needs a new index, and bad input names its field.
    expect(await assistant.enableVectorIndex(db.pool, '3')).toEqual({ pgvector: true, dimensions: 3 });
    await expect(assistant.enableVectorIndex(db.pool, 4)).rejects.toMatchObject({
      field: 'dimensions',
      message: expect.stringMatching(/already has 3 dimensions/),
    });
    await expect(assistant.enableVectorIndex(db.pool, 2001)).rejects.toMatchObject({ field: 'dimensions' });
  });
});
