// The install step's vector index from the installer's settings, on PGlite with `vector`: nothing when embeddings
// are off or the dimension is not given, the index when they are on, and a bad dimension names the variable.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { usePgliteDatabase } from '../pglite-database';

const db = usePgliteDatabase();

describe('enableVectorIndexFromSettings', () => {
  it('does nothing when embeddings are off or their dimension is not given', async () => {
    for (const settings of [
      {},
      { ASSISTANT_EMBEDDINGS_MODEL: 'off', ASSISTANT_EMBEDDING_DIMENSIONS: '256' },
      { ASSISTANT_EMBEDDINGS_MODEL: ' ', ASSISTANT_EMBEDDING_DIMENSIONS: '256' },
      { ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small', ASSISTANT_EMBEDDING_DIMENSIONS: '' },
    ]) {
      expect(await assistant.enableVectorIndexFromSettings(db.pool, settings)).toBeNull();
    }
    expect(await assistant.vectorIndexDimensions(db.pool)).toBeNull();
  });

  it('names the variable for a bad dimension, and enables the index for a good one', async () => {
    await expect(
      assistant.enableVectorIndexFromSettings(db.pool, {
        ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
        ASSISTANT_EMBEDDING_DIMENSIONS: '4000',
      }),
    ).rejects.toMatchObject({
      field: 'ASSISTANT_EMBEDDING_DIMENSIONS',
      message: expect.stringMatching(/^ASSISTANT_EMBEDDING_DIMENSIONS: must be an integer from 1 to 2000/),
    });
    const settings = { ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small', ASSISTANT_EMBEDDING_DIMENSIONS: '1536' };
    expect(await assistant.enableVectorIndexFromSettings(db.pool, settings)).toEqual({
      pgvector: true,
      dimensions: 1536,
    });
    expect(await assistant.vectorIndexDimensions(db.pool)).toBe(1536);
  });
});
