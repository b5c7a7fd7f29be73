// Which path recall by meaning takes on this database: pgvector's HNSW index (with its dimension), or the cosine
// scan over real[] embeddings and why (no `vector` extension on the server, the index never enabled, or made for
// another dimension than the embeddings model gives), or words only when no embeddings model is configured.
import type { Queryable } from '../../assistant/src/storage/db';
import { vectorExtensionAvailable, vectorIndexDimensions } from '../../assistant/src/storage/vector-index';

export interface RecallPathCheck {
  path: 'pgvector' | 'cosine' | 'words';
  /** The pgvector index's dimension, when there is one. */
  indexDimensions: number | null;
  detail: string;
}

/**
 * `embeddingDimensions`: what the configured embeddings model gives (doctor's embeddings check), null when it is
 * configured but was not measured, undefined when no embeddings model is configured.
 */
export async function checkRecallPath(db: Queryable, embeddingDimensions?: number | null): Promise<RecallPathCheck> {
  const indexDimensions = await vectorIndexDimensions(db);
  if (embeddingDimensions === undefined)
    return { path: 'words', indexDimensions, detail: 'words and names only: no embeddings model is configured' };
  if (indexDimensions !== null) {
    if (embeddingDimensions === null || embeddingDimensions === indexDimensions)
      return {
        path: 'pgvector',
        indexDimensions,
        detail: `pgvector: HNSW index for ${indexDimensions} dimensions covers every memory`,
      };
    return {
      path: 'cosine',
      indexDimensions,
      detail:
        `cosine over every memory's real[] embedding (no index): the pgvector index has ${indexDimensions} ` +
        `dimensions but the embeddings model gives ${embeddingDimensions}; a different model needs a new index`,
    };
  }
  const why = (await vectorExtensionAvailable(db))
    ? 'the vector extension is available but the index was never enabled (set ASSISTANT_EMBEDDING_DIMENSIONS and run the install step)'
    : 'this Postgres has no vector extension (the embedded Postgres of run.sh never has)';
  return { path: 'cosine', indexDimensions, detail: `cosine over every memory's real[] embedding (no index): ${why}` };
}

/** doctor's line for it: ok for pgvector, note for the fallback paths. */
export function recallPathLine(check: RecallPathCheck): string {
  return `${check.path === 'pgvector' ? 'ok  ' : 'note'} recall by meaning: ${check.detail}`;
}
