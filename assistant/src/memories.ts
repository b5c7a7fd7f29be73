// Memory: what the assistant knows about a user. Recall ranks by full text (OR of stemmed words in the user's
// language), trigram similarity on the people/entities named, importance, a recency decay and, when an embeddings
// endpoint is configured, cosine similarity of embeddings; in one query.
import type { Queryable } from './db';
import { EmbeddingError, type Embedder } from './embeddings';
import { AssistantInputError, AssistantNotFoundError } from './errors';
import { getUserSettings } from './settings';
import { vectorIndexDimensions } from './vector-index';
import { normaliseName, optionalEnum, optionalInt, optionalText, requirePositiveInt, requireText, requireUserId, stringList } from './validate';

export const MEMORY_KINDS = ['fact', 'preference', 'event', 'person', 'note', 'instruction'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export interface Memory {
  id: number;
  content: string;
  kind: MemoryKind;
  importance: number;
  tags: string[];
  people: string[];
  entities: string[];
  source: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RecalledMemory extends Memory {
  score: number;
}

export interface MemoryInput {
  content?: unknown;
  kind?: unknown;
  importance?: unknown;
  tags?: unknown;
  people?: unknown;
  entities?: unknown;
  source?: unknown;
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
}

/** What happened to an embedding: none configured, stored/used, or failed (the memory itself is kept). */
export interface EmbeddingOutcome {
  status: 'off' | 'stored' | 'used' | 'failed';
  model?: string;
  dimensions?: number;
  error?: string;
}

const MAX_CONTENT = 100_000;

function optionalNumber(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) throw new AssistantInputError(field, `must be a number from ${min} to ${max}`);
  return n;
}
const COLUMNS = 'id, content, kind, importance, tags, people, entities, source, created_at, updated_at';

function toMemory(row: Record<string, unknown>): Memory {
  return {
    id: Number(row.id),
    content: row.content as string,
    kind: row.kind as MemoryKind,
    importance: Number(row.importance),
    tags: row.tags as string[],
    people: row.people as string[],
    entities: row.entities as string[],
    source: (row.source as string | null) ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

/** The search columns derived from a memory's fields, computed the same way on insert and update. */
function derived(people: string[], entities: string[]) {
  const named = [...people, ...entities];
  return { nameKeys: [...new Set(named.map(normaliseName))], names: named.join(' ; ') };
}

const SEARCH_VECTOR_SQL = (lang: string, content: string, extra: string) =>
  `setweight(to_tsvector(${lang}::regconfig, ${content}), 'A') || setweight(to_tsvector(${lang}::regconfig, ${extra}), 'B')`;

export async function remember(db: Queryable, userIdInput: unknown, input: MemoryInput): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const content = requireText(input.content, 'content', MAX_CONTENT);
  const kind = optionalEnum(input.kind, 'kind', MEMORY_KINDS) ?? 'fact';
  const importance = optionalInt(input.importance, 'importance', 1, 5) ?? 3;
  const tags = stringList(input.tags, 'tags');
  const people = stringList(input.people, 'people');
  const entities = stringList(input.entities, 'entities');
  const source = optionalText(input.source, 'source', 200) ?? null;
  const { language } = await getUserSettings(db, userId);
  const { nameKeys, names } = derived(people, entities);
  const extra = [...tags, ...people, ...entities].join(' ');
  const result = await db.query(
    `INSERT INTO assistant.memories (user_id, content, kind, importance, tags, people, entities, name_keys, names, source, language, search_vector)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::regconfig, ${SEARCH_VECTOR_SQL('$11', '$2', '$12')}
      WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING ${COLUMNS}`,
    [userId, content, kind, importance, tags, people, entities, nameKeys, names, source, language, extra],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  return toMemory(result.rows[0]);
}

export async function getMemory(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const result = await db.query(`SELECT ${COLUMNS} FROM assistant.memories WHERE user_id = $1 AND id = $2`, [userId, id]);
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toMemory(result.rows[0]);
}

/** Changes the given fields only; the search columns are recomputed. */
export async function updateMemory(db: Queryable, userIdInput: unknown, idInput: unknown, input: MemoryInput): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const current = await getMemory(db, userId, idInput);
  const next = {
    content: input.content === undefined || input.content === '' ? current.content : requireText(input.content, 'content', MAX_CONTENT),
    kind: optionalEnum(input.kind, 'kind', MEMORY_KINDS) ?? current.kind,
    importance: optionalInt(input.importance, 'importance', 1, 5) ?? current.importance,
    tags: input.tags === undefined ? current.tags : stringList(input.tags, 'tags'),
    people: input.people === undefined ? current.people : stringList(input.people, 'people'),
    entities: input.entities === undefined ? current.entities : stringList(input.entities, 'entities'),
    source: input.source === undefined ? current.source : (optionalText(input.source, 'source', 200) ?? null),
  };
  const { language } = await getUserSettings(db, userId);
  const { nameKeys, names } = derived(next.people, next.entities);
  const extra = [...next.tags, ...next.people, ...next.entities].join(' ');
  const result = await db.query(
    `UPDATE assistant.memories SET content = $3, kind = $4, importance = $5, tags = $6, people = $7, entities = $8,
            name_keys = $9, names = $10, source = $11, language = $12::regconfig,
            search_vector = ${SEARCH_VECTOR_SQL('$12', '$3', '$13')}, updated_at = now(),
            -- an embedding of other content is stale: dropped (updateAndEmbed makes a new one)
            embedding = CASE WHEN content = $3 THEN embedding END, embedding_model = CASE WHEN content = $3 THEN embedding_model END
      WHERE user_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [userId, current.id, next.content, next.kind, next.importance, next.tags, next.people, next.entities, nameKeys, names, next.source, language, extra],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${current.id} for this user`);
  return toMemory(result.rows[0]);
}

/**
 * Embeds a stored memory's content and saves the vector. An endpoint failure is reported in the outcome, never
 * thrown: the memory stays stored, recall finds it by words and names, and a later update embeds it again.
 */
export async function embedMemory(db: Queryable, memory: Memory, userId: string, embedder: Embedder): Promise<EmbeddingOutcome> {
  let vector: number[];
  try {
    [vector] = await embedder.embed([memory.content]);
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    return { status: 'failed', model: embedder.model, error: `${error.message}; the memory is stored without an embedding` };
  }
  // Only if the content is still the one embedded (a concurrent update wins).
  await db.query(`UPDATE assistant.memories SET embedding = $4::real[], embedding_model = $5 WHERE user_id = $1 AND id = $2 AND content = $3`, [
    userId,
    memory.id,
    memory.content,
    vector,
    embedder.model,
  ]);
  return { status: 'stored', model: embedder.model, dimensions: vector.length };
}

/** remember, then embed the memory when an embedder is given (an endpoint failure loses nothing, see embedMemory). */
export async function rememberAndEmbed(db: Queryable, userIdInput: unknown, input: MemoryInput, embedder?: Embedder): Promise<{ memory: Memory; embedding: EmbeddingOutcome }> {
  const memory = await remember(db, userIdInput, input);
  const embedding = embedder ? await embedMemory(db, memory, requireUserId(userIdInput), embedder) : { status: 'off' as const };
  return { memory, embedding };
}

/** updateMemory, then embed the new content when it changed (or has no embedding yet) and an embedder is given. */
export async function updateAndEmbed(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  input: MemoryInput,
  embedder?: Embedder,
): Promise<{ memory: Memory; embedding: EmbeddingOutcome }> {
  const memory = await updateMemory(db, userIdInput, idInput, input);
  if (!embedder) return { memory, embedding: { status: 'off' } };
  const userId = requireUserId(userIdInput);
  const current = await db.query(`SELECT embedding_model FROM assistant.memories WHERE user_id = $1 AND id = $2`, [userId, memory.id]);
  if (current.rows[0]?.embedding_model === embedder.model) return { memory, embedding: { status: 'stored', model: embedder.model } };
  return { memory, embedding: await embedMemory(db, memory, userId, embedder) };
}

export async function forgetMemory(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const result = await db.query(`DELETE FROM assistant.memories WHERE user_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [userId, id]);
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toMemory(result.rows[0]);
}

/** Words of the query that may be names: letters/digits, at least 3 long, lower-cased, at most 12. */
export function nameCandidates(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return [...new Set(words.filter((word) => [...word].length >= 3))].slice(0, 12);
}

/** The user's query as an OR of its stemmed words, or null when it has none (only stop words). */
export async function orQuery(db: Queryable, language: string, text: string): Promise<string | null> {
  return (await searchTerms(db, language, text)).tsquery;
}

/**
 * A lexeme is "common" when Postgres' own statistics on search_vector (kept by ANALYZE) put it in more than
 * sqrt(COMMON_CANDIDATES / rows) of all memories, and at least this share. Reading the newest rows until
 * COMMON_CANDIDATES match then costs fewer rows than fetching every match (e.g. above 5.5% at 100k rows).
 * A common lexeme still counts in the score, but only its newest matches become candidates.
 */
export const COMMON_LEXEME_FREQUENCY = 0.01;

/**
 * What recall searches for: the OR tsquery of the stemmed words, the words worth comparing with names (at least
 * 3 letters and not a stop word in the user's language), and which lexemes are common. One round trip.
 */
export async function searchTerms(db: Queryable, language: string, text: string): Promise<SearchTerms> {
  const [result, common] = await Promise.all([
    db.query<{ q: string; names: string[]; lexemes: string[] }>(
      `SELECT replace(plainto_tsquery($1::regconfig, $2)::text, ' & ', ' | ') AS q,
              tsvector_to_array(to_tsvector($1::regconfig, $2)) AS lexemes,
              coalesce((SELECT array_agg(w ORDER BY i) FROM unnest($3::text[]) WITH ORDINALITY AS t(w, i)
                         WHERE to_tsvector($1::regconfig, w) <> ''::tsvector), '{}') AS names`,
      [language, text, nameCandidates(text)],
    ),
    commonLexemes(db),
  ]);
  const row = result.rows[0];
  const q = row?.q ?? '';
  const lexemes = (row?.lexemes ?? []).slice(0, MAX_TERMS);
  return {
    tsquery: q.trim() === '' ? null : q,
    names: row?.names ?? [],
    lexemes,
    rare: lexemes.filter((lexeme) => !common.has(lexeme)),
    common: lexemes.filter((lexeme) => common.has(lexeme)),
  };
}

/** How long the common-lexeme list is reused; the statistics behind it change only when ANALYZE runs. */
const COMMON_LEXEMES_TTL_MS = 60_000;
const commonLexemesCache = new WeakMap<Queryable, { at: number; lexemes: Promise<Set<string>> }>();

/**
 * The common lexemes of the whole memories table (no user data: Postgres' statistics), read from pg_stats and
 * reused for a minute per connection pool.
 */
export function commonLexemes(db: Queryable): Promise<Set<string>> {
  const cached = commonLexemesCache.get(db);
  if (cached && Date.now() - cached.at < COMMON_LEXEMES_TTL_MS) return cached.lexemes;
  const lexemes = db
    .query<{ e: string }>(
      `SELECT f.e FROM pg_stats s JOIN pg_class c ON c.oid = 'assistant.memories'::regclass,
              unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS f(e, freq)
        WHERE s.schemaname = 'assistant' AND s.tablename = 'memories' AND s.attname = 'search_vector'
          AND f.e IS NOT NULL AND f.freq > greatest($1::float8, sqrt($2::float8 / greatest(c.reltuples, 1)))`,
      [COMMON_LEXEME_FREQUENCY, COMMON_CANDIDATES],
    )
    .then((result) => new Set(result.rows.map((row) => row.e)));
  commonLexemesCache.set(db, { at: Date.now(), lexemes });
  lexemes.catch(() => commonLexemesCache.delete(db));
  return lexemes;
}

/** Forgets the cached common lexemes (after ANALYZE, in tests and benchmarks). */
export function forgetCommonLexemes(db: Queryable): void {
  commonLexemesCache.delete(db);
}

export interface SearchTerms {
  /** The OR of the stemmed words, as tsquery text; null when there are none. */
  tsquery: string | null;
  /** Words compared with the people/entities named (trigram word similarity). */
  names: string[];
  /** The stemmed words, one by one (at most MAX_TERMS), for counting how many a memory contains. */
  lexemes: string[];
  /** The lexemes whose every match is a candidate. */
  rare: string[];
  /** The common lexemes (see COMMON_LEXEME_FREQUENCY): their matches are capped, newest first. */
  common: string[];
}

const MAX_TERMS = 12;
/** Recall scores in full only this many candidates, picked by how many query words (and names) they match. */
export const RECALL_CANDIDATES = 300;
/** The newest matches of the common words (and of all of them together) that may become candidates. */
export const COMMON_CANDIDATES = 300;
/** Candidates found by embedding alone (nearest by pgvector, or else the newest embedded memories). */
export const SEMANTIC_CANDIDATES = 200;
/** A memory found only by its embedding is recalled when its cosine similarity reaches this (default). */
export const DEFAULT_MIN_SIMILARITY = 0.3;

/** A single lexeme as a tsquery literal (quoted, so any character is taken literally). */
const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** How recall uses embeddings: not at all, re-ranking the candidates (real[]), or also a pgvector HNSW arm. */
export type SemanticMode = 'none' | 'rerank' | 'pgvector';

export interface RecallPlan {
  withText: boolean;
  withKind: boolean;
  terms: Pick<SearchTerms, 'lexemes' | 'rare' | 'common' | 'names'>;
  semantic: SemanticMode;
}

/**
 * The ranked recall query, in two stages so that its cost stays bounded when a common word matches many rows.
 * Candidates: every match of the rare words (tsvector GIN), the newest COMMON_CANDIDATES matches of the common
 * words and of all common words together, and the name matches (trigram GIN); cut to the RECALL_CANDIDATES that
 * match the most query words (a rare word counts double) or a name (newest first among equals). With embeddings,
 * up to SEMANTIC_CANDIDATES more: the nearest by pgvector, or else the newest embedded memories. Only the candidates get the full score:
 * ts_rank_cd, the best name similarity, importance, cosine similarity, and a recency decay (half-life $4 days,
 * never below 0.7). A memory found only by its embedding needs a similarity of at least the minimum.
 * Parameters: $1 user id, $2 name words, $3 limit, $4 half-life, then the OR tsquery, the rare-word tsquery, the
 * common-word OR and AND tsqueries (each when present), the kind (when filtered), one tsquery per lexeme, each
 * name word again, and with embeddings the query vector, the model and the minimum similarity.
 */
export function recallSql(plan: RecallPlan): string {
  const { withText, withKind, terms, semantic } = plan;
  let next = 5;
  const param = () => `$${next++}`;
  const tsq = withText ? `${param()}::tsquery` : '';
  const rareQuery = withText && terms.rare.length > 0 ? `${param()}::tsquery` : '';
  const commonQuery = withText && terms.common.length > 0 ? `${param()}::tsquery` : '';
  const commonAllQuery = withText && terms.common.length > 1 ? `${param()}::tsquery` : '';
  const kindFilter = withKind ? `AND m.kind = ${param()}` : '';
  // A rare word counts twice as much as a common one when picking candidates (it says more about the memory).
  const lexemeHits = (withText ? terms.lexemes : []).map((lexeme) => `(m.search_vector @@ ${param()}::tsquery)::int${terms.common.includes(lexeme) ? '' : ' * 2'}`);
  // One clause per name word, so that each is a GIN trigram index scan (OR-ed as a bitmap).
  const nameMatches = terms.names.map(() => `m.names %> ${param()}`);
  const nameMatch = nameMatches.length > 0 ? `(${nameMatches.join(' OR ')})` : 'false';
  const vector = semantic !== 'none' ? `${param()}::real[]` : '';
  const model = semantic !== 'none' ? param() : '';
  const minSimilarity = semantic !== 'none' ? `${param()}::float8` : '';

  const textScore = withText ? `CASE WHEN m.search_vector @@ ${tsq} THEN ts_rank_cd(m.search_vector, ${tsq}, 32) ELSE 0 END` : '0';
  // How many query words a memory contains (rare ones twice); 1 for a memory that contains none but names someone
  // like a query word (trigram similarity is costly per row, so it is only computed for those).
  const wordHits = lexemeHits.length > 0 ? `(${lexemeHits.join(' + ')})` : '0';
  const hits = `CASE WHEN ${wordHits} > 0 THEN ${wordHits} WHEN m.names <> '' AND ${nameMatch} THEN 1 ELSE 0 END AS hits`;
  const arm = (where: string, newestFirst = false) =>
    `(SELECT m.id, m.created_at, ${hits} FROM assistant.memories m WHERE m.user_id = $1 AND ${where} ${kindFilter}` +
    (newestFirst ? ` ORDER BY m.created_at DESC LIMIT ${COMMON_CANDIDATES})` : ')');
  // Each arm is planned on its own. Rare words and names: one arm, a BitmapOr of the tsvector and trigram GIN
  // indexes, so a row found by both (a name is also a word of the memory) is fetched once. Common words (and all
  // of them together): newest first, capped, by the (user_id, created_at) index until enough match, or by GIN
  // and a sort when that is cheaper. UNION removes rows found twice (their hits agree).
  const exact = [rareQuery ? `m.search_vector @@ ${rareQuery}` : '', ...nameMatches].filter(Boolean);
  const arms = [
    exact.length > 0 ? arm(`(${exact.join(' OR ')})`) : '',
    commonQuery ? arm(`m.search_vector @@ ${commonQuery}`, true) : '',
    commonAllQuery ? arm(`m.search_vector @@ ${commonAllQuery}`, true) : '',
  ].filter(Boolean);
  const similarity =
    semantic === 'none'
      ? '0::float8'
      : `CASE WHEN m.embedding_model = ${model} AND cardinality(m.embedding) = cardinality(${vector})
              THEN (SELECT sum(a::float8 * b::float8) FROM unnest(m.embedding, ${vector}) AS v(a, b)) ELSE 0 END`;
  const semanticOrder = semantic === 'pgvector' ? `m.embedding_vector <=> ${vector}::vector` : 'm.created_at DESC';
  const sources = [
    arms.length > 0
      ? `SELECT id, true AS lexical FROM (SELECT id FROM (${arms.join(' UNION ')}) matched ORDER BY hits DESC, created_at DESC LIMIT ${RECALL_CANDIDATES}) lexical`
      : '',
    semantic !== 'none'
      ? `SELECT id, false AS lexical FROM (SELECT m.id FROM assistant.memories m WHERE m.user_id = $1 AND m.embedding_model = ${model} ${kindFilter}
           ORDER BY ${semanticOrder} LIMIT ${SEMANTIC_CANDIDATES}) semantic`
      : '',
  ].filter(Boolean);
  return `
    WITH candidates AS (
      SELECT id, bool_or(lexical) AS lexical FROM (${sources.join(' UNION ALL ')}) found GROUP BY id
    )
    SELECT ${COLUMNS}, score FROM (
      SELECT m.*, (
          ${textScore}
          + CASE WHEN m.names = '' THEN 0 ELSE (SELECT coalesce(max(word_similarity(w, m.names)), 0) FROM unnest($2::text[]) AS w) END
          + m.importance * 0.04::float8
          + 0.5 * greatest(similarity, 0)
        ) * (0.7 + 0.3 * power(0.5::float8, extract(epoch FROM now() - m.created_at)::float8 / 86400.0::float8 / $4::float8)) AS score
        FROM candidates c JOIN assistant.memories m ON m.id = c.id
        CROSS JOIN LATERAL (SELECT ${similarity} AS similarity) s
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
export function recallParameters(userId: string, terms: SearchTerms, limit: number, halfLifeDays: number, kind?: string, semantic?: SemanticQuery): unknown[] {
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

export interface RecallResult {
  memories: RecalledMemory[];
  /** Whether the query's embedding took part: off (no embedder), used, or failed (then recall ran without it). */
  embedding: EmbeddingOutcome;
}

/** The memories most relevant to a free-text query, best first. */
export async function recall(db: Queryable, userIdInput: unknown, queryInput: unknown, options: RecallOptions = {}): Promise<RecalledMemory[]> {
  return (await recallWithEmbedding(db, userIdInput, queryInput, options)).memories;
}

/**
 * recall, and how the embedding went. When the embeddings endpoint fails, recall still answers from full text,
 * names, importance and recency, and says so in `embedding`.
 */
export async function recallWithEmbedding(db: Queryable, userIdInput: unknown, queryInput: unknown, options: RecallOptions = {}): Promise<RecallResult> {
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
      embedding = { status: 'failed', model: options.embedder.model, error: `${error.message}; recalled without embeddings` };
    }
  }
  if (!terms.tsquery && terms.names.length === 0 && !semantic) return { memories: [], embedding };
  const mode: SemanticMode = !semantic ? 'none' : (await vectorIndexDimensions(db)) === semantic.vector.length ? 'pgvector' : 'rerank';
  const sql = recallSql({ withText: terms.tsquery !== null, withKind: kind !== undefined, terms, semantic: mode });
  const result = await db.query(sql, recallParameters(userId, terms, limit, halfLife, kind, semantic));
  return { memories: result.rows.map((row) => ({ ...toMemory(row), score: Number(Number(row.score).toFixed(4)) })), embedding };
}

/** The newest memories, for "what do you know about me" without a query. */
export async function recentMemories(db: Queryable, userIdInput: unknown, limitInput?: unknown): Promise<Memory[]> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const result = await db.query(`SELECT ${COLUMNS} FROM assistant.memories WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [userId, limit]);
  return result.rows.map(toMemory);
}
