// Recall: the memories most relevant to a free-text query. It ranks by full text (OR of stemmed words in the user's
// language), trigram similarity on the people/entities named, importance, a recency decay and, when an embeddings
// endpoint is configured, cosine similarity of embeddings; in one query (recall-sql.ts).
import type { Queryable } from '../storage/db';
import { vectorIndexDimensions } from '../storage/vector-index';
import { AssistantInputError } from '../errors';
import { getUserSettings } from '../settings/settings';
import { optionalEnum, optionalInt, requireText, requireUserId } from '../validate';
import type { EmbeddingOutcome } from './embed';
import { EmbeddingError, type Embedder } from './embeddings';
import { MEMORY_KINDS, toMemory, type Memory } from './model';
import { recallParameters, recallSql, type SemanticMode, type SemanticQuery } from './recall-sql';
import { searchTerms } from './search-terms';

export interface RecalledMemory extends Memory {
  score: number;
}

export interface RecallOptions {
  limit?: unknown;
  kind?: unknown;
  /** Days after which a memory's recency weight has halved (default 30). */
  halfLifeDays?: unknown;
  /** Embeds the query when given; memories are then also ranked by cosine similarity. */
  embedder?: Embedder;
  /** The cosine similarity a memory found only by its embedding needs (default DEFAULT_MIN_SIMILARITY). */
  minSimilarity?: unknown;
  /** Also recall facts captured from outside content that the user has not confirmed (marked `confirmed: false`). */
  includeUnconfirmed?: boolean;
}

/** A memory found only by its embedding is recalled when its cosine similarity reaches this (default). */
export const DEFAULT_MIN_SIMILARITY = 0.3;

function optionalNumber(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max)
    throw new AssistantInputError(field, `must be a number from ${min} to ${max}`);
  return n;
}

export interface RecallResult {
  memories: RecalledMemory[];
  /** Whether the query's embedding took part: off (no embedder), used, or failed (then recall ran without it). */
  embedding: EmbeddingOutcome;
}

/** The memories most relevant to a free-text query, best first. */
export async function recall(
  db: Queryable,
  userIdInput: unknown,
  queryInput: unknown,
  options: RecallOptions = {},
): Promise<RecalledMemory[]> {
  return (await recallWithEmbedding(db, userIdInput, queryInput, options)).memories;
}

/**
 * recall, and how the embedding went. When the embeddings endpoint fails, recall still answers from full text,
 * names, importance and recency, and says so in `embedding`.
 */
export async function recallWithEmbedding(
  db: Queryable,
  userIdInput: unknown,
  queryInput: unknown,
  options: RecallOptions = {},
): Promise<RecallResult> {
  const userId = requireUserId(userIdInput);
  const query = requireText(queryInput, 'query', 10_000);
  const limit = optionalInt(options.limit, 'limit', 1, 100) ?? 10;
  const halfLife = optionalInt(options.halfLifeDays, 'halfLifeDays', 1, 36_500) ?? 30;
  const kind = optionalEnum(options.kind, 'kind', MEMORY_KINDS);
  const minSimilarity = optionalNumber(options.minSimilarity, 'minSimilarity', -1, 1) ?? DEFAULT_MIN_SIMILARITY;
  const { language } = await getUserSettings(db, userId);
  const terms = await searchTerms(db, language, query);
  let embedding: EmbeddingOutcome = { status: 'off' };
  let semantic: SemanticQuery | undefined;
  if (options.embedder) {
    try {
      const [vector] = await options.embedder.embed([query]);
      semantic = { vector, model: options.embedder.model, minSimilarity };
      embedding = { status: 'used', model: options.embedder.model, dimensions: vector.length };
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      embedding = {
        status: 'failed',
        model: options.embedder.model,
        error: `${error.message}; recalled without embeddings`,
      };
    }
  }
  if (!terms.tsquery && terms.names.length === 0 && !semantic) return { memories: [], embedding };
  const mode: SemanticMode = !semantic
    ? 'none'
    : (await vectorIndexDimensions(db)) === semantic.vector.length
      ? 'pgvector'
      : 'cosine';
  const sql = recallSql({
    withText: terms.tsquery !== null,
    withKind: kind !== undefined,
    terms,
    semantic: mode,
    withUnconfirmed: options.includeUnconfirmed === true,
  });
  const result = await db.query(sql, recallParameters(userId, terms, limit, halfLife, kind, semantic));
  return {
    memories: result.rows.map((row) => ({ ...toMemory(row), score: Number(Number(row.score).toFixed(4)) })),
    embedding,
  };
}
