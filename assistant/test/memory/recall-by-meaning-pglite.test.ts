// Recall by meaning over 10,000 memories on the pgvector path: PGlite (Postgres 17 in WebAssembly) with `vector`,
// the index enabled as at install; the ranked query takes its semantic candidates from the HNSW index and finds a
// memory three years older than the 10,000 newer ones by its embedding alone.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { DEFAULT_MIN_SIMILARITY } from '../../src/memory/recall';
import { usePgliteDatabase } from '../pglite-database';
import { createUser } from '../helpers';
import { useFakeEmbeddings } from './fake-embedder';
import { loadOldAndMany, OLD_MEMORY_TEXT } from './many-memories';

const db = usePgliteDatabase();
const embeddings = useFakeEmbeddings({ key: 'sk-meaning', model: 'text-embedding-3-small', dimensions: 256 });

describe('recall by meaning with pgvector (PGlite)', () => {
  it('finds an old memory behind 10,000 newer ones through the HNSW index', async () => {
    const userId = await createUser(db.pool, 'meaning');
    const old = await loadOldAndMany(db.pool, userId, embeddings.embedder, 10_000, 256);
    expect(await assistant.enableVectorIndex(db.pool, 256)).toEqual({ pgvector: true, dimensions: 256 });
    const found = await assistant.recallWithEmbedding(db.pool, userId, OLD_MEMORY_TEXT, {
      embedder: embeddings.embedder,
    });
    expect(found.embedding).toMatchObject({ status: 'used', dimensions: 256 });
    expect(found.memories.map((m) => m.id)).toEqual([old]);

    // The same query's plan: its semantic candidates come from the HNSW index.
    const { language } = await assistant.getUserSettings(db.pool, userId);
    const terms = await assistant.searchTerms(db.pool, language, OLD_MEMORY_TEXT);
    const [vector] = await embeddings.embedder.embed([OLD_MEMORY_TEXT]);
    const semantic = { vector, model: embeddings.embedder.model, minSimilarity: DEFAULT_MIN_SIMILARITY };
    const sql = assistant.recallSql({ withText: false, withKind: false, terms, semantic: 'pgvector' });
    const plan = await db.pool.query(
      `EXPLAIN ${sql}`,
      assistant.recallParameters(userId, terms, 10, 30, undefined, semantic),
    );
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan using memories_embedding_hnsw_idx/,
    );
    // WebAssembly: loading 10,000 memories and building the HNSW index takes 50–70 s on 2 busy cores.
  }, 240_000);
});
