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
  const result = await db.query<{ q: string }>(`SELECT replace(plainto_tsquery($1::regconfig, $2)::text, ' & ', ' | ') AS q`, [language, text]);
  const q = result.rows[0]?.q ?? '';
  return q.trim() === '' ? null : q;
}

/**
 * The ranked recall query. Parameters: $1 user id, $2 name candidates, $3 limit, $4 half-life in days, then the
 * OR tsquery (when the query has lexemes) and the kind filter (when given).
 */
export function recallSql(withText: boolean, withKind: boolean): string {
  const tsq = '$5::tsquery';
  const kindParam = withText ? '$6' : '$5';
  const textMatch = withText ? `m.search_vector @@ ${tsq}` : 'false';
  const textScore = withText ? `CASE WHEN m.search_vector @@ ${tsq} THEN ts_rank_cd(m.search_vector, ${tsq}, 32) ELSE 0 END` : '0';
  return `
    SELECT ${COLUMNS}, score FROM (
      SELECT m.*, (
          ${textScore}
          + (SELECT coalesce(max(word_similarity(w, m.names)), 0) FROM unnest($2::text[]) AS w)
          + m.importance * 0.04
        ) * (0.7 + 0.3 * power(0.5, extract(epoch FROM now() - m.created_at) / 86400.0 / $4)) AS score
        FROM assistant.memories m
       WHERE m.user_id = $1
         AND (${textMatch} OR m.names %> ANY($2::text[]))
         ${withKind ? `AND m.kind = ${kindParam}` : ''}
    ) ranked
    ORDER BY score DESC, id DESC
    LIMIT $3`;
}

/** The memories most relevant to a free-text query, best first. */
export async function recall(db: Queryable, userIdInput: unknown, queryInput: unknown, options: RecallOptions = {}): Promise<RecalledMemory[]> {
  const userId = requireUserId(userIdInput);
  const query = requireText(queryInput, 'query', 10_000);
  const limit = optionalInt(options.limit, 'limit', 1, 100) ?? 10;
  const halfLife = optionalInt(options.halfLifeDays, 'halfLifeDays', 1, 36_500) ?? 30;
  const kind = optionalEnum(options.kind, 'kind', MEMORY_KINDS);
  const { language } = await getUserSettings(db, userId);
  const tsquery = await orQuery(db, language, query);
  const names = nameCandidates(query);
  if (!tsquery && names.length === 0) return [];
  const values: unknown[] = [userId, names, limit, halfLife];
  if (tsquery) values.push(tsquery);
  if (kind) values.push(kind);
  const result = await db.query(recallSql(tsquery !== null, kind !== undefined), values);
  return result.rows.map((row) => ({ ...toMemory(row), score: Number(Number(row.score).toFixed(4)) }));
}

/** The newest memories, for "what do you know about me" without a query. */
export async function recentMemories(db: Queryable, userIdInput: unknown, limitInput?: unknown): Promise<Memory[]> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const result = await db.query(`SELECT ${COLUMNS} FROM assistant.memories WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [userId, limit]);
  return result.rows.map(toMemory);
}
