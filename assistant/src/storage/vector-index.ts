// The optional pgvector index for memory embeddings. Run once at install with the embedding model's dimension:
// when the `vector` extension is available it adds memories.embedding_vector vector(dim), kept equal to the
// real[] embedding by a trigger, and an HNSW index for cosine distance; without the extension it does nothing
// and recall finds the nearest embeddings by cosine over the real[] column instead.
// Tested on PGlite with its `vector` extension (assistant/test/storage/vector-index-pglite.test.ts); not yet on a
// native Postgres server with pgvector.
import type { Queryable } from './db';
import { AssistantInputError } from '../errors';

export interface VectorIndexResult {
  /** true when the pgvector column and HNSW index exist for `dimensions`. */
  pgvector: boolean;
  dimensions: number | null;
  reason?: string;
}

/** pgvector's HNSW index accepts vectors of at most 2,000 dimensions. */
const MAX_HNSW_DIMENSIONS = 2000;

export async function vectorExtensionAvailable(db: Queryable): Promise<boolean> {
  const result = await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  return result.rows.length > 0;
}

/** The dimension of the pgvector column, or null when there is none. */
export async function vectorIndexDimensions(db: Queryable): Promise<number | null> {
  const result = await db.query<{ dimensions: number }>('SELECT dimensions FROM assistant.vector_index');
  return result.rows[0]?.dimensions ?? null;
}

/** Creates the pgvector column, trigger and HNSW index for `dimensions` when possible (idempotent). */
export async function enableVectorIndex(db: Queryable, dimensionsInput: unknown): Promise<VectorIndexResult> {
  const dimensions = Number(dimensionsInput);
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_HNSW_DIMENSIONS) {
    throw new AssistantInputError(
      'dimensions',
      `must be an integer from 1 to ${MAX_HNSW_DIMENSIONS} (pgvector's HNSW limit)`,
    );
  }
  const existing = await vectorIndexDimensions(db);
  if (existing !== null) {
    if (existing !== dimensions) {
      throw new AssistantInputError(
        'dimensions',
        `the vector index already has ${existing} dimensions; a different model needs a new index`,
      );
    }
    return { pgvector: true, dimensions };
  }
  if (!(await vectorExtensionAvailable(db))) {
    return {
      pgvector: false,
      dimensions: null,
      reason:
        'the vector extension is not installed on this server; recall scans the real[] embeddings by cosine without it',
    };
  }
  // The dimension is a validated integer: DDL cannot take it as a parameter.
  await db.query(`
    CREATE EXTENSION IF NOT EXISTS vector;
    ALTER TABLE assistant.memories ADD COLUMN IF NOT EXISTS embedding_vector vector(${dimensions});
    CREATE OR REPLACE FUNCTION assistant.memories_embedding_vector() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      NEW.embedding_vector := CASE WHEN cardinality(NEW.embedding) = ${dimensions} THEN NEW.embedding::vector END;
      RETURN NEW;
    END $fn$;
    DROP TRIGGER IF EXISTS memories_embedding_vector ON assistant.memories;
    CREATE TRIGGER memories_embedding_vector BEFORE INSERT OR UPDATE OF embedding ON assistant.memories
      FOR EACH ROW EXECUTE FUNCTION assistant.memories_embedding_vector();
    UPDATE assistant.memories SET embedding = embedding WHERE cardinality(embedding) = ${dimensions};
    CREATE INDEX IF NOT EXISTS memories_embedding_hnsw_idx ON assistant.memories USING hnsw (embedding_vector vector_cosine_ops);
    INSERT INTO assistant.vector_index (dimensions) VALUES (${dimensions}) ON CONFLICT DO NOTHING;`);
  return { pgvector: true, dimensions };
}

/**
 * The install step (scripts/migrate.ts, and the setup one-shot through prepareAssistantDatabase): when embeddings are
 * on (ASSISTANT_EMBEDDINGS_MODEL set and not "off") and ASSISTANT_EMBEDDING_DIMENSIONS names their dimension, enables
 * the vector index; null when embeddings are off or the dimension is not given. A bad dimension names the variable.
 */
export async function enableVectorIndexFromSettings(
  db: Queryable,
  settings: Record<string, string | undefined>,
): Promise<VectorIndexResult | null> {
  const model = settings.ASSISTANT_EMBEDDINGS_MODEL?.trim() ?? '';
  const dimensions = settings.ASSISTANT_EMBEDDING_DIMENSIONS?.trim() ?? '';
  if (model === '' || model.toLowerCase() === 'off' || dimensions === '') return null;
  try {
    return await enableVectorIndex(db, dimensions);
  } catch (error) {
    if (!(error instanceof AssistantInputError)) throw error;
    throw new AssistantInputError('ASSISTANT_EMBEDDING_DIMENSIONS', error.reason);
  }
}
