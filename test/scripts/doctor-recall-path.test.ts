// doctor's recall path: on a real Postgres 17 without `vector` (the embedded one of run.sh) the cosine fallback and
// why; on PGlite with `vector` the index not yet enabled, then pgvector with its dimension, or the fallback when the
// embeddings model gives another dimension; words only when no embeddings model is configured.
import { describe, expect, it } from 'vitest';
import { enableVectorIndex } from '../../assistant/src/storage/vector-index';
import { useAssistantDatabase } from '../../assistant/test/database';
import { usePgliteDatabase } from '../../assistant/test/pglite-database';
import { checkRecallPath, recallPathLine } from '../../scripts/doctor/recall-path';

const postgres = useAssistantDatabase();
const pglite = usePgliteDatabase();

describe('doctor: which recall path is in use', () => {
  it('Postgres without the vector extension: the cosine fallback, and why; words only without embeddings', async () => {
    const check = await checkRecallPath(postgres.pool, 1536);
    expect(check).toMatchObject({ path: 'cosine', indexDimensions: null });
    expect(recallPathLine(check)).toMatch(/^note recall by meaning: cosine .*no vector extension/);
    expect(await checkRecallPath(postgres.pool)).toMatchObject({ path: 'words' });
  });

  it('PGlite with vector: not enabled yet, then pgvector for its dimension only', async () => {
    expect((await checkRecallPath(pglite.pool, 8)).detail).toMatch(/available but the index was never enabled/);
    await enableVectorIndex(pglite.pool, 8);
    const check = await checkRecallPath(pglite.pool, 8);
    expect(check).toEqual({
      path: 'pgvector',
      indexDimensions: 8,
      detail: 'pgvector: HNSW index for 8 dimensions covers every memory',
    });
    expect(recallPathLine(check)).toMatch(/^ok {3}recall by meaning: pgvector/);
    expect(await checkRecallPath(pglite.pool, null)).toMatchObject({ path: 'pgvector' });
    expect((await checkRecallPath(pglite.pool, 1536)).detail).toMatch(/index has 8 dimensions .* gives 1536/);
  });
});
