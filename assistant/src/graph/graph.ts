// Knowledge graph queries: an entity's neighbourhood (depth ≤ 2) and the memories that mention it. Entities are
// kept by entities.ts, relations by relations.ts.
import type { Queryable } from '../storage/db';
import { AssistantNotFoundError } from '../errors';
import { getUserSettings } from '../settings/settings';
import { normaliseName, optionalInt, requireUserId } from '../validate';
import { findEntity, toEntity, type Entity } from './entities';
import { toRelation, type Relation } from './relations';

export interface Neighbour extends Entity {
  depth: number;
}

export interface GraphQueryResult {
  entity: Entity;
  neighbours: Neighbour[];
  relations: Relation[];
  memories: { id: number; content: string; kind: string; createdAt: string }[];
}

/**
 * The rule for "the memory mentions the entity", in SQL over a memories row `memory`: its name keys hold the entity's
 * normalised name (capture links the names it resolved), or its text holds the name as a phrase in `language`.
 */
export const mentionsEntitySql = (memory: string, key: string, language: string, name: string): string =>
  `(${memory}.name_keys @> ARRAY[${key}::text] OR ${memory}.search_vector @@ phraseto_tsquery(${language}::regconfig, ${name}))`;

/** The memories shown for an entity: neither superseded nor folded, and confirmed (outside content is not). */
export const LIVE_CONFIRMED_SQL = (memory: string): string =>
  `${memory}.superseded_at IS NULL AND ${memory}.folded_at IS NULL AND ${memory}.confirmed`;

export interface GraphQueryOptions {
  depth?: unknown;
  /** Also walk relations whose validity has ended. */
  includeEnded?: boolean;
  memoryLimit?: unknown;
  /** What "current" means for validity times (default: now). */
  now?: Date;
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
  // `now` is the query's parameter `at` (still typed when ended relations are included).
  const current = (at: string) =>
    options.includeEnded ? `${at}::timestamptz IS NOT NULL` : `(r.valid_to IS NULL OR r.valid_to > ${at})`;
  const now = options.now ?? new Date();
  const reached = await db.query(
    `WITH RECURSIVE walk(entity_id, depth) AS (
       SELECT $2::bigint, 0
       UNION
       SELECT CASE WHEN r.from_entity_id = w.entity_id THEN r.to_entity_id ELSE r.from_entity_id END, w.depth + 1
         FROM walk w JOIN assistant.relations r
           ON r.user_id = $1 AND (r.from_entity_id = w.entity_id OR r.to_entity_id = w.entity_id)
        WHERE w.depth < $3 AND ${current('$4')}
     ), nearest AS (SELECT entity_id, min(depth) AS depth FROM walk GROUP BY entity_id)
     SELECT e.id, e.name, e.type, e.summary, e.aliases, e.created_at, e.updated_at, n.depth
       FROM nearest n JOIN assistant.entities e ON e.user_id = $1 AND e.id = n.entity_id
      ORDER BY n.depth, e.name`,
    [userId, entity.id, depth, now],
  );
  const ids = reached.rows.map((row) => Number(row.id));
  const relations = await db.query(
    `SELECT r.id, f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to
       FROM assistant.relations r
       JOIN assistant.entities f ON f.user_id = r.user_id AND f.id = r.from_entity_id
       JOIN assistant.entities t ON t.user_id = r.user_id AND t.id = r.to_entity_id
      WHERE r.user_id = $1 AND r.from_entity_id = ANY($2::bigint[]) AND r.to_entity_id = ANY($2::bigint[]) AND ${current('$3')}
      ORDER BY r.id`,
    [userId, ids, now],
  );
  const { language } = await getUserSettings(db, userId);
  const memories = await db.query(
    `SELECT m.id, m.content, m.kind, m.created_at FROM assistant.memories m
      WHERE m.user_id = $1 AND ${LIVE_CONFIRMED_SQL('m')} AND ${mentionsEntitySql('m', '$2', '$3', '$4')}
      ORDER BY m.created_at DESC, m.id DESC LIMIT $5`,
    [userId, normaliseName(entity.name), language, entity.name, memoryLimit],
  );
  return {
    entity,
    neighbours: reached.rows
      .filter((row) => Number(row.id) !== entity.id)
      .map((row) => ({ ...toEntity(row), depth: Number(row.depth) })),
    relations: relations.rows.map(toRelation),
    memories: memories.rows.map((row) => ({
      id: Number(row.id),
      content: row.content,
      kind: row.kind,
      createdAt: (row.created_at as Date).toISOString(),
    })),
  };
}
