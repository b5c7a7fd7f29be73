// Knowledge graph: entities unique per user by normalised name, and typed directed relations with validity
// times. A query returns an entity's neighbourhood (depth ≤ 2) and the memories that mention it.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getUserSettings } from '../settings/settings';
import {
  normaliseName,
  optionalEnum,
  optionalInt,
  optionalText,
  optionalTimestamp,
  requireText,
  requireUserId,
} from '../validate';

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
  createdAt: string;
  updatedAt: string;
}

export interface Relation {
  id: number;
  from: string;
  type: string;
  to: string;
  validFrom: string | null;
  validTo: string | null;
}

export interface Neighbour extends Entity {
  depth: number;
}

export interface GraphQueryResult {
  entity: Entity;
  neighbours: Neighbour[];
  relations: Relation[];
  memories: { id: number; content: string; kind: string; createdAt: string }[];
}

const ENTITY_COLUMNS = 'id, name, type, summary, created_at, updated_at';

function toEntity(row: Record<string, unknown>): Entity {
  return {
    id: Number(row.id),
    name: row.name as string,
    type: row.type as EntityType,
    summary: (row.summary as string | null) ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);

function requireEntityName(value: unknown, field: string): string {
  const name = requireText(value, field, 200).trim().replace(/\s+/g, ' ');
  return name;
}

/** "Works at" → "works_at": relation types are short snake_case words. */
export function relationType(value: unknown, field = 'relation'): string {
  const text = requireText(value, field, 60);
  const type = text
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (!/^[\p{L}\p{N}_]+$/u.test(type))
    throw new AssistantInputError(field, 'must be letters, digits, spaces or underscores (e.g. works_at)');
  return type;
}

export interface EntityInput {
  name?: unknown;
  type?: unknown;
  summary?: unknown;
}

/** Creates the entity or updates its type/summary when given. The first spelling of the name is kept. */
export async function upsertEntity(
  db: Queryable,
  userIdInput: unknown,
  input: EntityInput,
): Promise<Entity & { created: boolean }> {
  const userId = requireUserId(userIdInput);
  const name = requireEntityName(input.name, 'name');
  const type = optionalEnum(input.type, 'type', ENTITY_TYPES) ?? null;
  const summary = optionalText(input.summary, 'summary', 2000)?.trim() || null;
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

/** Exact normalised name first, else the closest name by trigram word similarity ("Stefan" → "Stefan Huber"). */
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
      WHERE user_id = $1 AND (normalized_name = $2 OR $2 <% normalized_name)
      ORDER BY normalized_name = $2 DESC, word_similarity($2, normalized_name) DESC, similarity($2, normalized_name) DESC, id
      LIMIT 1`,
    [userId, key],
  );
  return result.rows[0] ? toEntity(result.rows[0]) : null;
}

export interface RelateInput {
  from?: unknown;
  relation?: unknown;
  to?: unknown;
  validFrom?: unknown;
  validTo?: unknown;
}

/** Records "<from> <relation> <to>". Missing entities are created (type "other"); an identical open relation is reused. */
export async function relate(
  db: Queryable,
  userIdInput: unknown,
  input: RelateInput,
): Promise<Relation & { created: boolean }> {
  const userId = requireUserId(userIdInput);
  const fromName = requireEntityName(input.from, 'from');
  const toName = requireEntityName(input.to, 'to');
  const type = relationType(input.relation);
  const validFrom = optionalTimestamp(input.validFrom, 'validFrom') ?? null;
  const validTo = optionalTimestamp(input.validTo, 'validTo') ?? null;
  if (validFrom && validTo && validTo < validFrom)
    throw new AssistantInputError('validTo', 'must not be before validFrom');
  const from = await upsertEntity(db, userId, { name: fromName });
  const to = await upsertEntity(db, userId, { name: toName });
  const existing = await db.query(
    `SELECT id, valid_from, valid_to FROM assistant.relations
      WHERE user_id = $1 AND from_entity_id = $2 AND to_entity_id = $3 AND type = $4
        AND valid_from IS NOT DISTINCT FROM $5 AND valid_to IS NOT DISTINCT FROM $6`,
    [userId, from.id, to.id, type, validFrom, validTo],
  );
  if (existing.rows[0]) {
    const row = existing.rows[0];
    return {
      id: Number(row.id),
      from: from.name,
      type,
      to: to.name,
      validFrom: iso(row.valid_from),
      validTo: iso(row.valid_to),
      created: false,
    };
  }
  const inserted = await db.query(
    `INSERT INTO assistant.relations (user_id, from_entity_id, to_entity_id, type, valid_from, valid_to)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, valid_from, valid_to`,
    [userId, from.id, to.id, type, validFrom, validTo],
  );
  const row = inserted.rows[0];
  return {
    id: Number(row.id),
    from: from.name,
    type,
    to: to.name,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
    created: true,
  };
}

export interface GraphQueryOptions {
  depth?: unknown;
  /** Also walk relations whose validity has ended. */
  includeEnded?: boolean;
  memoryLimit?: unknown;
}

export async function queryGraph(
  db: Queryable,
  userIdInput: unknown,
  nameInput: unknown,
  options: GraphQueryOptions = {},
): Promise<GraphQueryResult> {
  const userId = requireUserId(userIdInput);
  const depth = optionalInt(options.depth, 'depth', 0, 2) ?? 2;
  const memoryLimit = optionalInt(options.memoryLimit, 'memoryLimit', 0, 100) ?? 20;
  const entity = await findEntity(db, userId, nameInput);
  if (!entity)
    throw new AssistantNotFoundError('name', `no entity named like "${String(nameInput).trim()}" for this user`);
  const current = options.includeEnded ? 'true' : '(r.valid_to IS NULL OR r.valid_to > now())';
  const reached = await db.query(
    `WITH RECURSIVE walk(entity_id, depth) AS (
       SELECT $2::bigint, 0
       UNION
       SELECT CASE WHEN r.from_entity_id = w.entity_id THEN r.to_entity_id ELSE r.from_entity_id END, w.depth + 1
         FROM walk w JOIN assistant.relations r
           ON r.user_id = $1 AND (r.from_entity_id = w.entity_id OR r.to_entity_id = w.entity_id)
        WHERE w.depth < $3 AND ${current}
     ), nearest AS (SELECT entity_id, min(depth) AS depth FROM walk GROUP BY entity_id)
     SELECT e.id, e.name, e.type, e.summary, e.created_at, e.updated_at, n.depth
       FROM nearest n JOIN assistant.entities e ON e.user_id = $1 AND e.id = n.entity_id
      ORDER BY n.depth, e.name`,
    [userId, entity.id, depth],
  );
  const ids = reached.rows.map((row) => Number(row.id));
  const relations = await db.query(
    `SELECT r.id, f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to
       FROM assistant.relations r
       JOIN assistant.entities f ON f.user_id = r.user_id AND f.id = r.from_entity_id
       JOIN assistant.entities t ON t.user_id = r.user_id AND t.id = r.to_entity_id
      WHERE r.user_id = $1 AND r.from_entity_id = ANY($2::bigint[]) AND r.to_entity_id = ANY($2::bigint[]) AND ${current}
      ORDER BY r.id`,
    [userId, ids],
  );
  const { language } = await getUserSettings(db, userId);
  const memories = await db.query(
    `SELECT id, content, kind, created_at FROM assistant.memories
      WHERE user_id = $1 AND (name_keys @> ARRAY[$2::text] OR search_vector @@ phraseto_tsquery($3::regconfig, $4))
      ORDER BY created_at DESC, id DESC LIMIT $5`,
    [userId, normaliseName(entity.name), language, entity.name, memoryLimit],
  );
  return {
    entity,
    neighbours: reached.rows
      .filter((row) => Number(row.id) !== entity.id)
      .map((row) => ({ ...toEntity(row), depth: Number(row.depth) })),
    relations: relations.rows.map((row) => ({
      id: Number(row.id),
      from: row.from_name,
      type: row.type,
      to: row.to_name,
      validFrom: iso(row.valid_from),
      validTo: iso(row.valid_to),
    })),
    memories: memories.rows.map((row) => ({
      id: Number(row.id),
      content: row.content,
      kind: row.kind,
      createdAt: (row.created_at as Date).toISOString(),
    })),
  };
}

/** Ends an open relation (sets valid_to), keeping its history. */
export async function endRelation(
  db: Queryable,
  userIdInput: unknown,
  relationIdInput: unknown,
  endedAt?: unknown,
): Promise<Relation> {
  const userId = requireUserId(userIdInput);
  const id = optionalInt(relationIdInput, 'relationId', 1, Number.MAX_SAFE_INTEGER);
  if (id === undefined) throw new AssistantInputError('relationId', 'must be a positive integer id');
  const at = optionalTimestamp(endedAt, 'validTo') ?? new Date();
  const result = await db.query(
    `UPDATE assistant.relations r SET valid_to = $3
       FROM assistant.entities f, assistant.entities t
      WHERE r.user_id = $1 AND r.id = $2 AND f.user_id = r.user_id AND f.id = r.from_entity_id AND t.user_id = r.user_id AND t.id = r.to_entity_id
        AND (r.valid_from IS NULL OR r.valid_from <= $3)
      RETURNING r.id, f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to`,
    [userId, id, at],
  );
  if (!result.rows[0])
    throw new AssistantNotFoundError(
      'relationId',
      `no relation ${id} for this user (or validTo is before its validFrom)`,
    );
  const row = result.rows[0];
  return {
    id: Number(row.id),
    from: row.from_name,
    type: row.type,
    to: row.to_name,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
  };
}
