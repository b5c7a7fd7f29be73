// Memory CRUD: remember, read, change and forget what the assistant knows about a user. Each write also fills the
// columns recall searches (full-text vector in the user's language, normalised names) and the ones the write gate
// compares (subject and word keys, gate-text.ts). remember() stores without the gate: writes of the agent and of
// capture go through rememberThroughGate (gate.ts).
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
import { contentKey, factSubject } from './gate-text';
import { MEMORY_COLUMNS, MEMORY_KINDS, toMemory, type Memory } from './model';

export interface MemoryInput {
  content?: unknown;
  kind?: unknown;
  importance?: unknown;
  tags?: unknown;
  people?: unknown;
  entities?: unknown;
  source?: unknown;
  /** What the fact is about ("my accountant"); derived from the content when not given (gate-text.ts). */
  subject?: unknown;
  /** The quoted words the fact came from. */
  evidence?: unknown;
}

/** What the gate decided about a memory being stored: its trust, and the earlier memory it disagrees with. */
export interface StoreMarks {
  confirmed?: boolean;
  contradicts?: number | null;
  /** Its embedding, when the gate already made one. */
  embedding?: { vector: number[]; model: string };
}

const MAX_CONTENT = 100_000;
const MAX_EVIDENCE = 2_000;

/** The search columns derived from a memory's fields, computed the same way on insert and update. */
function derived(people: string[], entities: string[]) {
  const named = [...people, ...entities];
  return { nameKeys: [...new Set(named.map(normaliseName))], names: named.join(' ; ') };
}

const SEARCH_VECTOR_SQL = (lang: string, content: string, extra: string) =>
  `setweight(to_tsvector(${lang}::regconfig, ${content}), 'A') || setweight(to_tsvector(${lang}::regconfig, ${extra}), 'B')`;

/** The memory's fields, checked (errors name the field). */
export function memoryFields(input: MemoryInput) {
  const content = requireText(input.content, 'content', MAX_CONTENT);
  return {
    content,
    kind: optionalEnum(input.kind, 'kind', MEMORY_KINDS) ?? 'fact',
    importance: optionalInt(input.importance, 'importance', 1, 5) ?? 3,
    tags: stringList(input.tags, 'tags'),
    people: stringList(input.people, 'people'),
    entities: stringList(input.entities, 'entities'),
    source: optionalText(input.source, 'source', 200) ?? null,
    subjectKey: factSubject(content, optionalText(input.subject, 'subject', 200)),
    evidence: optionalText(input.evidence, 'evidence', MAX_EVIDENCE)?.trim() || null,
  };
}

export type MemoryFields = ReturnType<typeof memoryFields>;

/** Stores a memory as given, without the write gate. */
export async function remember(db: Queryable, userIdInput: unknown, input: MemoryInput): Promise<Memory> {
  return insertMemory(db, requireUserId(userIdInput), memoryFields(input));
}

/** Inserts checked fields (and the gate's marks) for a user. */
export async function insertMemory(
  db: Queryable,
  userId: string,
  fields: MemoryFields,
  marks: StoreMarks = {},
): Promise<Memory> {
  const { content, kind, importance, tags, people, entities, source } = fields;
  const { language } = await getUserSettings(db, userId);
  const { nameKeys, names } = derived(people, entities);
  const extra = [...tags, ...people, ...entities].join(' ');
  const result = await db.query(
    `INSERT INTO assistant.memories (user_id, content, kind, importance, tags, people, entities, name_keys, names, source,
       language, search_vector, subject_key, content_key, evidence, confirmed, contradicts, embedding, embedding_model)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::regconfig, ${SEARCH_VECTOR_SQL('$11', '$2', '$12')},
            $13, $14, $15, $16, $17, $18::real[], $19
      WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     RETURNING ${MEMORY_COLUMNS}`,
    [
      userId,
      content,
      kind,
      importance,
      tags,
      people,
      entities,
      nameKeys,
      names,
      source,
      language,
      extra,
      fields.subjectKey,
      contentKey(content),
      fields.evidence,
      marks.confirmed ?? true,
      marks.contradicts ?? null,
      marks.embedding?.vector ?? null,
      marks.embedding?.model ?? null,
    ],
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
            subject_key = $14, content_key = $15,
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
      input.subject !== undefined
        ? factSubject(next.content, optionalText(input.subject, 'subject', 200))
        : next.content === current.content
          ? current.subjectKey
          : factSubject(next.content, null),
      contentKey(next.content),
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

/** The newest memories, for "what do you know about me" without a query (superseded and folded ones: left out). */
export async function recentMemories(db: Queryable, userIdInput: unknown, limitInput?: unknown): Promise<Memory[]> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(limitInput, 'limit', 1, 100) ?? 10;
  const result = await db.query(
    `SELECT ${MEMORY_COLUMNS} FROM assistant.memories WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [userId, limit],
  );
  return result.rows.map(toMemory);
}
