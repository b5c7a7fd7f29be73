// For the recall benchmark only: the words-only recall query as it was before migration 32 (commit 83e7a64), so
// that bench-recall.ts can time it side by side with today's recall() on the same data, query by query.
// Every match of the rare words and names is a candidate here (a tsvector and trigram GIN bitmap).
import { MEMORY_COLUMNS } from '../assistant/src/memory/model';
import { COMMON_CANDIDATES, type SearchTerms } from '../assistant/src/memory/search-terms';

/** Recall scores in full only this many candidates, picked by how many query words (and names) they match. */
const RECALL_CANDIDATES = 300;
/** Candidates found by embedding alone: the nearest, by pgvector's HNSW index or else by the sign bits' Hamming distance. */
const SEMANTIC_CANDIDATES = 200;
/** A single lexeme as a tsquery literal (quoted, so any character is taken literally). */
const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** How recall uses embeddings: not at all, or also the nearest embedded memories by sign bits (then cosine on real[]) or by pgvector. */
type SemanticMode = 'none' | 'cosine' | 'pgvector';

interface RecallPlan {
  withText: boolean;
  withKind: boolean;
  terms: Pick<SearchTerms, 'lexemes' | 'rare' | 'common' | 'names'> & Partial<Pick<SearchTerms, 'commonNames'>>;
  semantic: SemanticMode;
  /** Also recall facts captured from outside content that the user has not confirmed (default: not). */
  withUnconfirmed?: boolean;
}

/**
 * The ranked recall query, in two stages so that its cost stays bounded when a common word matches many rows.
 * Candidates: every match of the rare words and names (tsvector and trigram GIN), the newest COMMON_CANDIDATES
 * matches of the common words, of all common words together and of the common names; cut to the RECALL_CANDIDATES that
 * match the most query words (a rare word counts double) or a name (newest first among equals). With embeddings,
 * up to SEMANTIC_CANDIDATES more: the nearest of any age, by pgvector, or else by the sign bits of every embedding of the user. Only the
 * candidates get the full score: ts_rank_cd, the best name similarity, importance, cosine similarity, and a recency
 * decay (half-life $4 days, never below 0.7). A memory found only by its embedding needs a similarity of at least the minimum.
 * Parameters: $1 user id, $2 name words, $3 limit, $4 half-life, then the OR tsquery, the rare-word tsquery, the
 * common-word OR and AND tsqueries (each when present), the kind (when filtered), one tsquery per lexeme, each
 * name word again, and with embeddings the query vector, the model and the minimum similarity.
 */
export function recallSqlBefore(plan: RecallPlan): string {
  const { withText, withKind, terms, semantic } = plan;
  // Superseded and folded memories are history, never recalled; unconfirmed ones only when asked for.
  const current = `AND m.superseded_at IS NULL AND m.folded_at IS NULL${plan.withUnconfirmed ? '' : ' AND m.confirmed'}`;
  let next = 5;
  const param = () => `$${next++}`;
  const tsq = withText ? `${param()}::tsquery` : '';
  const rareQuery = withText && terms.rare.length > 0 ? `${param()}::tsquery` : '';
  const commonQuery = withText && terms.common.length > 0 ? `${param()}::tsquery` : '';
  const commonAllQuery = withText && terms.common.length > 1 ? `${param()}::tsquery` : '';
  const kindFilter = withKind ? `AND m.kind = ${param()}` : '';
  // A rare word counts twice as much as a common one when picking candidates (it says more about the memory).
  const lexemeHits = (withText ? terms.lexemes : []).map(
    (lexeme) => `(m.search_vector @@ ${param()}::tsquery)::int${terms.common.includes(lexeme) ? '' : ' * 2'}`,
  );
  // One clause per name word, so that each is a GIN trigram index scan (OR-ed as a bitmap).
  const nameClauses = terms.names.map((name) => ({ name, sql: `m.names %> ${param()}` }));
  const nameMatches = nameClauses.map((clause) => clause.sql);
  const nameMatch = nameMatches.length > 0 ? `(${nameMatches.join(' OR ')})` : 'false';
  const isCommonName = (name: string) => terms.commonNames?.includes(name) ?? false;
  const rareNameMatches = nameClauses.filter((clause) => !isCommonName(clause.name)).map((clause) => clause.sql);
  const commonNameMatches = nameClauses.filter((clause) => isCommonName(clause.name)).map((clause) => clause.sql);
  const vector = semantic !== 'none' ? `${param()}::real[]` : '';
  const model = semantic !== 'none' ? param() : '';
  const minSimilarity = semantic !== 'none' ? `${param()}::float8` : '';

  const textScore = withText
    ? `CASE WHEN m.search_vector @@ ${tsq} THEN ts_rank_cd(m.search_vector, ${tsq}, 32) ELSE 0 END`
    : '0';
  // How many query words a memory contains (rare ones twice); 1 for a memory that contains none but names someone
  // like a query word (trigram similarity is costly per row, so it is only computed for those).
  const wordHits = lexemeHits.length > 0 ? `(${lexemeHits.join(' + ')})` : '0';
  const hits = `CASE WHEN ${wordHits} > 0 THEN ${wordHits} WHEN m.names <> '' AND ${nameMatch} THEN 1 ELSE 0 END AS hits`;
  const arm = (where: string, newestFirst = false) =>
    `(SELECT m.id, m.created_at, ${hits} FROM assistant.memories m WHERE m.user_id = $1 AND ${where} ${current} ${kindFilter}` +
    (newestFirst ? ` ORDER BY m.created_at DESC LIMIT ${COMMON_CANDIDATES})` : ')');
  // Each arm is planned on its own. Rare words and rare names: every match, one arm, a BitmapOr of the tsvector and
  // trigram GIN indexes, so a row found by both (a name is also a word of the memory) is fetched once. Common words
  // (and all of them together) and names whose word is common: newest first, capped, by the covering
  // (user_id, created_at) index until enough match, or by GIN and a sort when that is cheaper. A first name in
  // thousands of memories thus costs no more than a common word; an old memory is still found by that name together
  // with a rare word, or with all the common words. UNION removes rows found twice (their hits agree).
  const exact = [rareQuery ? `m.search_vector @@ ${rareQuery}` : '', ...rareNameMatches].filter(Boolean);
  const arms = [
    exact.length > 0 ? arm(`(${exact.join(' OR ')})`) : '',
    commonNameMatches.length > 0 ? arm(`m.names <> '' AND (${commonNameMatches.join(' OR ')})`, true) : '',
    commonQuery ? arm(`m.search_vector @@ ${commonQuery}`, true) : '',
    commonAllQuery ? arm(`m.search_vector @@ ${commonAllQuery}`, true) : '',
  ].filter(Boolean);
  const cosine = `(SELECT sum(a::float8 * b::float8) FROM unnest(m.embedding, ${vector}) AS v(a, b))`;
  const sameSize = `cardinality(m.embedding) = cardinality(${vector})`;
  const similarity =
    semantic === 'none'
      ? '0::float8'
      : `CASE WHEN m.embedding_model = ${model} AND ${sameSize} THEN ${cosine} ELSE 0 END`;
  // The nearest embedded memories of every age: by the HNSW index, or else by the Hamming distance of the sign bits
  // (migration 27's embedding_signs, over a covering index: a few bytes a memory, every memory of the user compared;
  // the query's bits computed once), and the candidates' full score uses the exact cosine. Sign bits keep the
  // direction of each dimension: for unit embeddings their Hamming distance grows with the angle, so the nearest by
  // it are the nearest by cosine up to its coarseness (approximate, like HNSW).
  const querySigns = `(SELECT assistant.embedding_signs(${vector}))`;
  const signDistance = `CASE WHEN bit_length(m.embedding_signs) = cardinality(${vector}) THEN bit_count(m.embedding_signs # ${querySigns}) END`;
  const semanticOrder =
    semantic === 'pgvector' ? `m.embedding_vector <=> ${vector}::vector` : `${signDistance}, m.id DESC`;
  const semanticFilter =
    semantic === 'pgvector'
      ? ''
      : `AND m.embedding_signs IS NOT NULL AND bit_length(m.embedding_signs) = cardinality(${vector})`;
  const sources = [
    arms.length > 0
      ? `SELECT id, true AS lexical FROM (SELECT id FROM (${arms.join(' UNION ')}) matched ORDER BY hits DESC, created_at DESC LIMIT ${RECALL_CANDIDATES}) lexical`
      : '',
    semantic !== 'none'
      ? `SELECT id, false AS lexical FROM (SELECT m.id FROM assistant.memories m
           WHERE m.user_id = $1 AND m.embedding_model = ${model} ${semanticFilter} ${current} ${kindFilter}
           ORDER BY ${semanticOrder} LIMIT ${SEMANTIC_CANDIDATES}) semantic`
      : '',
  ].filter(Boolean);
  return `
    WITH candidates AS (
      SELECT id, bool_or(lexical) AS lexical FROM (${sources.join(' UNION ALL ')}) found GROUP BY id
    )
    SELECT ${MEMORY_COLUMNS}, score FROM (
      SELECT m.*, (
          ${textScore}
          + CASE WHEN m.names = '' THEN 0 ELSE (SELECT coalesce(max(word_similarity(w, m.names)), 0) FROM unnest($2::text[]) AS w) END
          + m.importance * 0.04::float8
          + 0.5 * greatest(similarity, 0)
        ) * (0.7 + 0.3 * power(0.5::float8, extract(epoch FROM now() - m.created_at)::float8 / 86400.0::float8 / $4::float8)) AS score
        FROM candidates c JOIN assistant.memories m ON m.id = c.id
        -- OFFSET 0: computed once a candidate (inlined, the cosine would be computed again for the WHERE clause)
        CROSS JOIN LATERAL (SELECT ${similarity} AS similarity OFFSET 0) s
       WHERE c.lexical${semantic !== 'none' ? ` OR s.similarity >= ${minSimilarity}` : ''}
    ) ranked
    ORDER BY score DESC, id DESC
    LIMIT $3`;
}

interface SemanticQuery {
  vector: number[];
  model: string;
  minSimilarity: number;
}

/** The parameters of recallSql, in its order. */
export function recallParametersBefore(
  userId: string,
  terms: SearchTerms,
  limit: number,
  halfLifeDays: number,
  kind?: string,
  semantic?: SemanticQuery,
): unknown[] {
  const values: unknown[] = [userId, terms.names, limit, halfLifeDays];
  if (terms.tsquery) {
    values.push(terms.tsquery);
    if (terms.rare.length > 0) values.push(terms.rare.map(lexemeQuery).join(' | '));
    if (terms.common.length > 0) values.push(terms.common.map(lexemeQuery).join(' | '));
    if (terms.common.length > 1) values.push(terms.common.map(lexemeQuery).join(' & '));
  }
  if (kind) values.push(kind);
  if (terms.tsquery) values.push(...terms.lexemes.map(lexemeQuery));
  values.push(...terms.names);
  if (semantic) values.push(semantic.vector, semantic.model, semantic.minSimilarity);
  return values;
}
