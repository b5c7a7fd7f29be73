// Memory CRUD: remember, read, change and forget what the assistant knows about a user. Each write also fills the
// columns recall searches (full-text vector in the user's language, normalised names).
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserSettings } from '../settings/settings';
import {
  normaliseName,
  optionalEnum,
  optionalInt,
  optionalText,
  requirePositiveInt,
  requireText,
  requireUserId,
  stringList,
} from '../validate';
import { MEMORY_COLUMNS, MEMORY_KINDS, toMemory, type Memory } from './model';

export interface MemoryInput {
  content?: unknown;
  kind?: unknown;
  importance?: unknown;
  tags?: unknown;
  people?: unknown;
  entities?: unknown;
  source?: unknown;
}

const MAX_CONTENT = 100_000;

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
     RETURNING ${MEMORY_COLUMNS}`,
    [userId, content, kind, importance, tags, people, entities, nameKeys, names, source, language, extra],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  return toMemory(result.rows[0]);
}

export async function getMemory(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const result = await db.query(`SELECT ${MEMORY_COLUMNS} FROM assistant.memories WHERE user_id = $1 AND id = $2`, [
    userId,
    id,
  ]);
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toMemory(result.rows[0]);
}

/** Changes the given fields only; the search columns are recomputed. */
export async function updateMemory(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  input: MemoryInput,
): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const current = await getMemory(db, userId, idInput);
  const next = {
    content:
      input.content === undefined || input.content === ''
        ? current.content
        : requireText(input.content, 'content', MAX_CONTENT),
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
      WHERE user_id = $1 AND id = $2 RETURNING ${MEMORY_COLUMNS}`,
    [
      userId,
      current.id,
      next.content,
      next.kind,
      next.importance,
      next.tags,
      next.people,
      next.entities,
      nameKeys,
      names,
      next.source,
      language,
      extra,
    ],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${current.id} for this user`);
  return toMemory(result.rows[0]);
}

export async function forgetMemory(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const result = await db.query(
    `DELETE FROM assistant.memories WHERE user_id = $1 AND id = $2 RETURNING ${MEMORY_COLUMNS}`,
    [userId, id],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toMemory(result.rows[0]);
}

/** The newest memories, for "what do you know about me" without a query. */
export async function recentMemories(db: Queryable, userIdInput: unknown, limitInput?: unknown): Promise<Memory[]> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const result = await db.query(
    `SELECT ${MEMORY_COLUMNS} FROM assistant.memories WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [userId, limit],
  );
  return result.rows.map(toMemory);
}
