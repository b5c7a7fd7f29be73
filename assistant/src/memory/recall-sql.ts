// The ranked recall query: its SQL text for a plan (which search terms and embeddings take part), and its
// parameters in the same order. Pure: nothing here talks to the database.
import { MEMORY_COLUMNS } from './model';
import { COMMON_CANDIDATES, type SearchTerms } from './search-terms';

/** Recall scores in full only this many candidates, picked by how many query words (and names) they match. */
export const RECALL_CANDIDATES = 300;
/** Candidates found by embedding alone: the nearest, by pgvector's HNSW index or else by the sign bits' Hamming distance. */
export const SEMANTIC_CANDIDATES = 200;
/** A single lexeme as a tsquery literal (quoted, so any character is taken literally). */
const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** How recall uses embeddings: not at all, or also the nearest embedded memories by sign bits (then cosine on real[]) or by pgvector. */
export type SemanticMode = 'none' | 'cosine' | 'pgvector';

export interface RecallPlan {
  withText: boolean;
  withKind: boolean;
  terms: Pick<SearchTerms, 'lexemes' | 'rare' | 'common' | 'names'> &
    Partial<Pick<SearchTerms, 'commonNames' | 'fuzzyNames' | 'dated' | 'datedCommon'>>;
  semantic: SemanticMode;
  /** Also recall facts captured from outside content that the user has not confirmed (default: not). */
  withUnconfirmed?: boolean;
}

/**
 * The weeks the rare words are looked up in, newest first, as offsets from this week (newest, oldest; both included):
 * this week (and the next, for a clock a little behind), then 2, 4, 8, 16 and 32 weeks, then every older week.
 */
const DATED_WEEKS: [number, number | null][] = [
  [-1, 0],
  [1, 2],
  [3, 6],
  [7, 14],
  [15, 30],
  [31, 62],
  [63, null],
];

/** The pairs of lexemes with at least one rare one, as a tsquery text: a memory matching one of them has two words. */
export function pairsQuery(terms: Pick<SearchTerms, 'lexemes' | 'rare'>): string | null {
  const pairs: string[] = [];
  terms.lexemes.forEach((a, i) =>
    terms.lexemes.slice(i + 1).forEach((b) => {
      if (terms.rare.includes(a) || terms.rare.includes(b)) pairs.push(`(${lexemeQuery(a)} & ${lexemeQuery(b)})`);
    }),
  );
  return pairs.length > 0 ? pairs.join(' | ') : null;
}

/**
 * The ranked recall query, in two stages so that its cost stays bounded however many memories match a word.
 * Candidates: every match of the rare words with few matches and of the fuzzy names (one tsvector and trigram GIN
 * bitmap); the newest COMMON_CANDIDATES matches, of any age, of the rare words with many matches and of the common
 * words below DATED_COMMON_BELOW (each set by the dated-words index, migration 32, week by week), of the pairs of query
 * words with a rare one, of the other common words and of all common words together; cut to the RECALL_CANDIDATES
 * that match the most query words (a rare word counts double) or a name (newest first among equals). With
 * embeddings, up to SEMANTIC_CANDIDATES more: the nearest of any age, by pgvector, or else by the sign bits of every
 * embedding of the user. Only the candidates get the full score: ts_rank_cd, the best name similarity, importance,
 * cosine similarity, and a recency decay (half-life $4 days, never below 0.7). A memory found only by its embedding
 * needs a similarity of at least the minimum.
 * Parameters: $1 user id, $2 name words, $3 limit, $4 half-life, then (each when present) the OR tsquery, the
 * tsquery of the rare words with few matches, the rare lexemes with many, the pairs tsquery, the common lexemes read
 * week by week, the OR and AND tsqueries of the common words; the kind (when filtered), one tsquery per lexeme, each
 * fuzzy name word, and with embeddings the query vector, the model and the minimum similarity.
 */
export function recallSql(plan: RecallPlan): string {
  const { withText, withKind, terms, semantic } = plan;
  // Superseded and folded memories are history, never recalled; unconfirmed ones only when asked for.
  const current = `AND m.superseded_at IS NULL AND m.folded_at IS NULL${plan.withUnconfirmed ? '' : ' AND m.confirmed'}`;
  let next = 5;
  const param = () => `$${next++}`;
  const tsq = withText ? `${param()}::tsquery` : '';
  const dated = terms.dated ?? [];
  const fewRare = terms.rare.filter((lexeme) => !dated.includes(lexeme));
  const rareQuery = withText && fewRare.length > 0 ? `${param()}::tsquery` : '';
  const datedLexemes = withText && dated.length > 0 ? `${param()}::text[]` : '';
  const pairs = withText && pairsQuery(terms) !== null ? `${param()}::tsquery` : '';
  const datedCommon = terms.datedCommon ?? [];
  const walkedCommon = terms.common.filter((lexeme) => !datedCommon.includes(lexeme));
  const datedCommonLexemes = withText && datedCommon.length > 0 ? `${param()}::text[]` : '';
  const commonQuery = withText && walkedCommon.length > 0 ? `${param()}::tsquery` : '';
  const commonAllQuery = withText && terms.common.length > 1 ? `${param()}::tsquery` : '';
  const kindFilter = withKind ? `AND m.kind = ${param()}` : '';
  // A rare word counts twice as much as a common one when picking candidates (it says more about the memory).
  const lexemeHits = (withText ? terms.lexemes : []).map(
    (lexeme) => `(m.search_vector @@ ${param()}::tsquery)::int${terms.common.includes(lexeme) ? '' : ' * 2'}`,
  );
  // One clause per fuzzy name word, so that each is a GIN trigram index scan (OR-ed as a bitmap).
  const nameMatches = (terms.fuzzyNames ?? terms.names).map(() => `m.names %> ${param()}`);
  const nameMatch = nameMatches.length > 0 ? `(${nameMatches.join(' OR ')})` : 'false';
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
  const memoriesWhere = (where: string) =>
    `FROM assistant.memories m WHERE m.user_id = $1 AND ${where} ${current} ${kindFilter}`;
  const arm = (where: string, newestFirst = false) =>
    `(SELECT m.id, m.created_at, ${hits} ${memoriesWhere(where)}` +
    (newestFirst ? ` ORDER BY m.created_at DESC LIMIT ${COMMON_CANDIDATES})` : ')');
  // Words in many memories: newest first at any age, week by week through the dated-words GIN index (one lookup per
  // range of weeks in DATED_WEEKS, its matches sorted by time); the outer LIMIT stops once enough have matched, so
  // only the rows of the weeks needed are read, not every match. The nested loop keeps the ranges in order.
  const weekRanges = DATED_WEEKS.map(
    ([newest, oldest], i) =>
      `(${i}, w.this_week - ${newest}, ${oldest === null ? 'w.first_week' : `w.this_week - ${oldest}`})`,
  );
  const datedArm = (lexemes: string) =>
    `(SELECT dated.id, dated.created_at, dated.hits FROM (SELECT assistant.recall_week(now()) AS this_week,` +
    ` (SELECT assistant.recall_week(min(f.created_at)) FROM assistant.memories f WHERE f.user_id = $1) AS first_week) w` +
    ` CROSS JOIN LATERAL (VALUES ${weekRanges.join(', ')}) AS weeks(i, newest, oldest)` +
    ` CROSS JOIN LATERAL (SELECT m.id, m.created_at, ${hits} ${memoriesWhere(
      `assistant.dated_lexemes(m.search_vector, m.created_at) && assistant.dated_keys(${lexemes}, weeks.newest, weeks.oldest)`,
    )} ORDER BY m.created_at DESC) dated LIMIT ${COMMON_CANDIDATES})`;
  // Each arm is planned on its own. Rare words with few matches and fuzzy names: every match, one BitmapOr of the
  // tsvector and trigram GIN indexes. Rare words with many matches, and common words below DATED_COMMON_BELOW (in
  // their own arm, so they cannot crowd out the rare ones): the dated arm. Memories with two query words, one of them
  // rare, come from the pairs arm (a GIN intersection, few rows), so an old memory with two rare words is found
  // behind many newer ones with one. Other common words (and all common words together): newest first, by the
  // covering (user_id, created_at) index until enough match, or by GIN and a sort when that is cheaper. A name whose
  // word is frequent is found by that word like any other; a misspelt or rare one (fuzzyNames) also by trigram
  // similarity. UNION removes rows found twice (their hits agree).
  const exact = [rareQuery ? `m.search_vector @@ ${rareQuery}` : '', ...nameMatches].filter(Boolean);
  const arms = [
    exact.length > 0 ? arm(`(${exact.join(' OR ')})`) : '',
    datedLexemes ? datedArm(datedLexemes) : '',
    datedCommonLexemes ? datedArm(datedCommonLexemes) : '',
    pairs ? arm(`m.search_vector @@ ${pairs}`, true) : '',
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

export interface SemanticQuery {
  vector: number[];
  model: string;
  minSimilarity: number;
}

/** The parameters of recallSql, in its order. */
export function recallParameters(
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
    const dated = terms.dated ?? [];
    const fewRare = terms.rare.filter((lexeme) => !dated.includes(lexeme));
    if (fewRare.length > 0) values.push(fewRare.map(lexemeQuery).join(' | '));
    if (dated.length > 0) values.push(dated);
    const pairs = pairsQuery(terms);
    if (pairs !== null) values.push(pairs);
    const datedCommon = terms.datedCommon ?? [];
    const walkedCommon = terms.common.filter((lexeme) => !datedCommon.includes(lexeme));
    if (datedCommon.length > 0) values.push(datedCommon);
    if (walkedCommon.length > 0) values.push(walkedCommon.map(lexemeQuery).join(' | '));
    if (terms.common.length > 1) values.push(terms.common.map(lexemeQuery).join(' & '));
  }
  if (kind) values.push(kind);
  if (terms.tsquery) values.push(...terms.lexemes.map(lexemeQuery));
  values.push(...(terms.fuzzyNames ?? terms.names));
  if (semantic) values.push(semantic.vector, semantic.model, semantic.minSimilarity);
  return values;
}
