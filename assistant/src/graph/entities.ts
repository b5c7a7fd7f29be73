// Entities of the knowledge graph: one per user and thing, found by normalised name or a known alias. A new name is
// merged into an existing entity when it is that entity's name or alias, or (people only) the first or last name of
// exactly one person ("Stefan" → "Stefan Huber"), or the full name of exactly one person known by a single name
// ("Anna" → "Anna Berger", which becomes the name). The user themselves is one reserved entity, "the user".
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { normaliseName, optionalEnum, optionalText, requireText, requireUserId, stringList } from '../validate';

export const ENTITY_TYPES = [
  'person',
  'company',
  'organization',
  'product',
  'place',
  'project',
  'event',
  'topic',
  'other',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface Entity {
  id: number;
  name: string;
  type: EntityType;
  summary: string | null;
  /** Other names it is known by ("Stefan" for "Stefan Huber"). */
  aliases: string[];
  createdAt: string;
  updatedAt: string;
}

export const ENTITY_COLUMNS = 'id, name, type, summary, aliases, created_at, updated_at';

export function toEntity(row: Record<string, unknown>): Entity {
  return {
    id: Number(row.id),
    name: row.name as string,
    type: row.type as EntityType,
    summary: (row.summary as string | null) ?? null,
    aliases: (row.aliases as string[] | undefined) ?? [],
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

/** The entity standing for the user ("my accountant": "<Anna> accountant_of <the user>"). */
export const USER_ENTITY_NAME = 'the user';
/** Names that mean the user in a relation's end or a fact's subject. */
const USER_REFERENCES = new Set(['the user', 'user', 'me', 'i', 'myself', 'my']);

export const isUserReference = (name: string): boolean => USER_REFERENCES.has(normaliseName(name));

export function requireEntityName(value: unknown, field: string): string {
  const name = requireText(value, field, 200).trim().replace(/\s+/g, ' ');
  return isUserReference(name) ? USER_ENTITY_NAME : name;
}

export interface EntityInput {
  name?: unknown;
  type?: unknown;
  summary?: unknown;
  /** Other names it is known by; comma-separated text or a list. */
  aliases?: unknown;
}

export interface ResolvedEntity extends Entity {
  created: boolean;
  /** The name given, when it was merged into an entity of another name. */
  mergedFrom?: string;
}

const wordsOf = (key: string) => key.split(' ');

/** The entity a name means: its own name or a known alias, else a person by first/last or full name (see top). */
async function findMatch(db: Queryable, userId: string, key: string, type: EntityType | null): Promise<Entity | null> {
  const exact = await db.query(
    `SELECT ${ENTITY_COLUMNS} FROM assistant.entities
      WHERE user_id = $1 AND (normalized_name = $2 OR alias_keys @> ARRAY[$2])
      ORDER BY normalized_name = $2 DESC, id LIMIT 1`,
    [userId, key],
  );
  if (exact.rows[0]) return toEntity(exact.rows[0]);
  if ((type !== null && type !== 'person') || key === normaliseName(USER_ENTITY_NAME)) return null;
  const words = wordsOf(key);
  const people = await db.query(
    words.length === 1
      ? `SELECT ${ENTITY_COLUMNS} FROM assistant.entities
          WHERE user_id = $1 AND type = 'person' AND (normalized_name LIKE $2 || ' %' OR normalized_name LIKE '% ' || $2)
          LIMIT 2`
      : `SELECT ${ENTITY_COLUMNS} FROM assistant.entities
          WHERE user_id = $1 AND type = 'person' AND normalized_name = $2 LIMIT 2`,
    [userId, words.length === 1 ? key.replace(/[\\%_]/g, '\\$&') : words[0]],
  );
  // Only an unambiguous match merges ("Huber" with two Hubers stays its own entity).
  return people.rows.length === 1 ? toEntity(people.rows[0]) : null;
}

/**
 * The entity for a name (merged by name, alias or person name, see top), created when there is none; a given type
 * or summary replaces the old one, given aliases are added (unless another entity is known by them).
 */
export async function resolveEntity(db: Queryable, userId: string, input: EntityInput): Promise<ResolvedEntity> {
  const name = requireEntityName(input.name, 'name');
  const key = normaliseName(name);
  const type = name === USER_ENTITY_NAME ? 'person' : (optionalEnum(input.type, 'type', ENTITY_TYPES) ?? null);
  const summary = optionalText(input.summary, 'summary', 2000)?.trim() || null;
  const given = stringList(input.aliases, 'aliases', 20, 200).filter((alias) => !isUserReference(alias));
  const match = await findMatch(db, userId, key, type);
  if (!match) {
    const created = await insertEntity(db, userId, name, type, summary);
    return { ...(await addAliases(db, userId, created, given)), created: created.created };
  }
  // A full name for a person known by one name: the full name becomes the name, the short one an alias.
  const upgrade = wordsOf(key).length > 1 && normaliseName(match.name) !== key && !match.name.includes(' ');
  const newName = upgrade ? name : match.name;
  const result = await db.query(
    `UPDATE assistant.entities SET name = $3, normalized_name = $4, type = coalesce($5, type),
            summary = coalesce($6, summary), updated_at = now()
      WHERE user_id = $1 AND id = $2 RETURNING ${ENTITY_COLUMNS}`,
    [userId, match.id, newName, normaliseName(newName), type, summary],
  );
  const updated = await addAliases(db, userId, toEntity(result.rows[0]), [...given, upgrade ? match.name : name]);
  return { ...updated, created: false, ...(normaliseName(newName) !== key ? { mergedFrom: name } : {}) };
}

/** Adds the names as aliases of the entity, leaving out its own name, aliases it has and names of other entities. */
async function addAliases(db: Queryable, userId: string, entity: Entity, names: string[]): Promise<Entity> {
  const own = new Set([normaliseName(entity.name), ...entity.aliases.map(normaliseName)]);
  const fresh = new Map<string, string>();
  for (const alias of names) if (!own.has(normaliseName(alias))) fresh.set(normaliseName(alias), alias.trim());
  if (fresh.size === 0) return entity;
  const taken = await db.query<{ key: string }>(
    `SELECT k AS key FROM unnest($3::text[]) AS k WHERE EXISTS (SELECT 1 FROM assistant.entities o
      WHERE o.user_id = $1 AND o.id <> $2 AND (o.normalized_name = k OR o.alias_keys @> ARRAY[k]))`,
    [userId, entity.id, [...fresh.keys()]],
  );
  for (const { key } of taken.rows) fresh.delete(key);
  if (fresh.size === 0) return entity;
  const aliases = [...entity.aliases, ...fresh.values()];
  const result = await db.query(
    `UPDATE assistant.entities SET aliases = $3, alias_keys = $4, updated_at = now()
      WHERE user_id = $1 AND id = $2 RETURNING ${ENTITY_COLUMNS}`,
    [userId, entity.id, aliases, aliases.map(normaliseName)],
  );
  return toEntity(result.rows[0]);
}

async function insertEntity(
  db: Queryable,
  userId: string,
  name: string,
  type: EntityType | null,
  summary: string | null,
): Promise<ResolvedEntity> {
  const result = await db.query(
    `INSERT INTO assistant.entities (user_id, name, normalized_name, type, summary)
     SELECT $1, $2, $3, coalesce($4, 'other'), $5 WHERE EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
     ON CONFLICT (user_id, normalized_name) DO UPDATE SET
       type = coalesce($4, entities.type), summary = coalesce($5, entities.summary), updated_at = now()
     RETURNING ${ENTITY_COLUMNS}, (xmax = 0) AS created`,
    [userId, name, normaliseName(name), type, summary],
  );
  if (!result.rows[0]) throw new AssistantInputError('userId', 'no such user');
  return { ...toEntity(result.rows[0]), created: Boolean(result.rows[0].created) };
}

/** Creates the entity or updates its type/summary/aliases when given (merged by name and alias, see top). */
export async function upsertEntity(db: Queryable, userIdInput: unknown, input: EntityInput): Promise<ResolvedEntity> {
  return resolveEntity(db, requireUserId(userIdInput), input);
}

/** Exact name or alias first, else the closest name by trigram word similarity ("Stef" → "Stefan Huber"). */
export async function findEntity(
  db: Queryable,
  userIdInput: unknown,
  nameInput: unknown,
  field = 'name',
): Promise<Entity | null> {
  const userId = requireUserId(userIdInput);
  const key = normaliseName(requireEntityName(nameInput, field));
  const result = await db.query(
    `SELECT ${ENTITY_COLUMNS} FROM assistant.entities
      WHERE user_id = $1 AND (normalized_name = $2 OR alias_keys @> ARRAY[$2] OR $2 <% normalized_name)
      ORDER BY normalized_name = $2 DESC, alias_keys @> ARRAY[$2] DESC, word_similarity($2, normalized_name) DESC,
               similarity($2, normalized_name) DESC, id
      LIMIT 1`,
    [userId, key],
  );
  return result.rows[0] ? toEntity(result.rows[0]) : null;
}
