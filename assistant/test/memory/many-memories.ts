// Recall by meaning over many memories: one old memory that only its embedding can find (stop words only: no
// lexeme, no name), stored through the product's embedder, then `count` newer memories with random unit embeddings
// of the same model, loaded in one INSERT … SELECT (deterministic: setseed).
import type { Pool } from 'pg';
import * as assistant from '../../src';

export const OLD_MEMORY_TEXT = 'To be or not to be: that is all it was';

export async function loadOldAndMany(
  pool: Pool,
  userId: string,
  embedder: assistant.Embedder,
  count: number,
  dimensions: number,
): Promise<number> {
  const { memory } = await assistant.rememberAndEmbed(pool, userId, { content: OLD_MEMORY_TEXT }, embedder);
  await pool.query(`UPDATE assistant.memories SET created_at = now() - interval '3 years' WHERE id = $1`, [memory.id]);
  const client = await pool.connect();
  try {
    await client.query('SELECT setseed(0.34)');
    await client.query(
      `WITH raw AS (
         SELECT g, ARRAY(SELECT random() - 0.5 + 0 * g FROM generate_series(1, $3::int)) AS v
           FROM generate_series(1, $2::int) AS g
       )
       INSERT INTO assistant.memories (user_id, content, language, search_vector, embedding, embedding_model, created_at)
       SELECT $1, 'garden note ' || g, 'english', to_tsvector('english', 'garden note ' || g),
              ARRAY(SELECT x / sqrt((SELECT sum(y * y) FROM unnest(v) AS y)) FROM unnest(v) AS x)::real[], $4,
              now() - g * interval '1 hour'
         FROM raw`,
      [userId, count, dimensions, embedder.model],
    );
  } finally {
    client.release();
  }
  await pool.query('ANALYZE assistant.memories');
  return memory.id;
}
