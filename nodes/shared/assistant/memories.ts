// Memory: what the assistant knows about a user. Recall ranks by full text (OR of stemmed words in the user's
// language), trigram similarity on the people/entities named, importance, and a recency decay, in one query.
import type { Queryable } from './db';
import { AssistantInputError, AssistantNotFoundError } from './errors';
import { getUserSettings } from './settings';
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
}

const MAX_CONTENT = 100_000;
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
            search_vector = ${SEARCH_VECTOR_SQL('$12', '$3', '$13')}, updated_at = now()
      WHERE user_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [userId, current.id, next.content, next.kind, next.importance, next.tags, next.people, next.entities, nameKeys, names, next.source, language, extra],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${current.id} for this user`);
  return toMemory(result.rows[0]);
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
 * What recall searches for: the OR tsquery of the stemmed words, and the words worth comparing with names
 * (at least 3 letters and not a stop word in the user's language). One round trip.
 */
export async function searchTerms(db: Queryable, language: string, text: string): Promise<SearchTerms> {
  const result = await db.query<{ q: string; names: string[]; lexemes: string[] }>(
    `SELECT replace(plainto_tsquery($1::regconfig, $2)::text, ' & ', ' | ') AS q,
            tsvector_to_array(to_tsvector($1::regconfig, $2)) AS lexemes,
            coalesce((SELECT array_agg(w ORDER BY i) FROM unnest($3::text[]) WITH ORDINALITY AS t(w, i)
                       WHERE to_tsvector($1::regconfig, w) <> ''::tsvector), '{}') AS names`,
    [language, text, nameCandidates(text)],
  );
  const row = result.rows[0];
  const q = row?.q ?? '';
  return { tsquery: q.trim() === '' ? null : q, names: row?.names ?? [], lexemes: (row?.lexemes ?? []).slice(0, MAX_TERMS) };
}

export interface SearchTerms {
  /** The OR of the stemmed words, as tsquery text; null when there are none. */
  tsquery: string | null;
  /** Words compared with the people/entities named (trigram word similarity). */
  names: string[];
  /** The stemmed words, one by one (at most MAX_TERMS), for counting how many a memory contains. */
  lexemes: string[];
}

const MAX_TERMS = 12;
/** Recall scores in full only this many candidates, picked by how many query words (and names) they match. */
export const RECALL_CANDIDATES = 300;

/** A single lexeme as a tsquery literal (quoted, so any character is taken literally). */
const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The ranked recall query, in two stages so that its cost stays bounded when a common word matches many rows:
 * the candidates (index scans on the tsvector and trigram GIN indexes) are cut to the RECALL_CANDIDATES that match
 * the most query words and names (newest first among equals); only those get the full score: ts_rank_cd, the best
 * name similarity, importance, and a recency decay (half-life $4 days, never below 0.7).
 * Parameters: $1 user id, $2 name words, $3 limit, $4 half-life, then the OR tsquery (when the query has
 * lexemes), the kind (when filtered), one tsquery per lexeme, and each name word again.
 */
export function recallSql(withText: boolean, withKind: boolean, lexemeCount = 0, nameCount = 0): string {
  let next = 5;
  const tsq = withText ? `$${next++}::tsquery` : '';
  const kindParam = withKind ? `$${next++}` : '';
  const lexemeHits = Array.from({ length: withText ? lexemeCount : 0 }, () => `(m.search_vector @@ $${next++}::tsquery)::int`);
  // One clause per name word, so that each is a GIN trigram index scan (OR-ed as a bitmap).
  const nameMatches = Array.from({ length: nameCount }, () => `m.names %> $${next++}`);
  const nameMatch = nameMatches.length > 0 ? `(${nameMatches.join(' OR ')})` : 'false';
  const textMatch = withText ? `m.search_vector @@ ${tsq}` : 'false';
  const textScore = withText ? `CASE WHEN m.search_vector @@ ${tsq} THEN ts_rank_cd(m.search_vector, ${tsq}, 32) ELSE 0 END` : '0';
  const kindFilter = withKind ? `AND m.kind = ${kindParam}` : '';
  const hits = `${[...lexemeHits, `(m.names <> '' AND ${nameMatch})::int`].join(' + ')} AS hits`;
  // Two arms, each planned on its own index (tsvector GIN, trigram GIN); UNION removes rows found by both.
  const arms = [
    withText ? `SELECT m.id, m.created_at, ${hits} FROM assistant.memories m WHERE m.user_id = $1 AND ${textMatch} ${kindFilter}` : '',
    nameCount > 0 ? `SELECT m.id, m.created_at, ${hits} FROM assistant.memories m WHERE m.user_id = $1 AND ${nameMatch} ${kindFilter}` : '',
  ].filter(Boolean);
  return `
    WITH candidates AS (
      SELECT id FROM (${arms.join(' UNION ')}) matched
       ORDER BY hits DESC, created_at DESC
       LIMIT ${RECALL_CANDIDATES}
    )
    SELECT ${COLUMNS}, score FROM (
      SELECT m.*, (
          ${textScore}
          + CASE WHEN m.names = '' THEN 0 ELSE (SELECT coalesce(max(word_similarity(w, m.names)), 0) FROM unnest($2::text[]) AS w) END
          + m.importance * 0.04::float8
        ) * (0.7 + 0.3 * power(0.5::float8, extract(epoch FROM now() - m.created_at)::float8 / 86400.0::float8 / $4::float8)) AS score
        FROM candidates c JOIN assistant.memories m ON m.id = c.id
    ) ranked
    ORDER BY score DESC, id DESC
    LIMIT $3`;
}

/** The parameters of recallSql, in its order. */
export function recallParameters(userId: string, terms: SearchTerms, limit: number, halfLifeDays: number, kind?: string): unknown[] {
  const values: unknown[] = [userId, terms.names, limit, halfLifeDays];
  if (terms.tsquery) values.push(terms.tsquery);
  if (kind) values.push(kind);
  if (terms.tsquery) values.push(...terms.lexemes.map(lexemeQuery));
  values.push(...terms.names);
  return values;
}

/** The memories most relevant to a free-text query, best first. */
export async function recall(db: Queryable, userIdInput: unknown, queryInput: unknown, options: RecallOptions = {}): Promise<RecalledMemory[]> {
  const userId = requireUserId(userIdInput);
  const query = requireText(queryInput, 'query', 10_000);
  const limit = optionalInt(options.limit, 'limit', 1, 100) ?? 10;
  const halfLife = optionalInt(options.halfLifeDays, 'halfLifeDays', 1, 36_500) ?? 30;
  const kind = optionalEnum(options.kind, 'kind', MEMORY_KINDS);
  const { language } = await getUserSettings(db, userId);
  const terms = await searchTerms(db, language, query);
  if (!terms.tsquery && terms.names.length === 0) return [];
  const sql = recallSql(terms.tsquery !== null, kind !== undefined, terms.lexemes.length, terms.names.length);
  const result = await db.query(sql, recallParameters(userId, terms, limit, halfLife, kind));
  return result.rows.map((row) => ({ ...toMemory(row), score: Number(Number(row.score).toFixed(4)) }));
}

/** The newest memories, for "what do you know about me" without a query. */
export async function recentMemories(db: Queryable, userIdInput: unknown, limitInput?: unknown): Promise<Memory[]> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const result = await db.query(`SELECT ${COLUMNS} FROM assistant.memories WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [userId, limit]);
  return result.rows.map(toMemory);
}
