// Entity summaries rewritten from what the assistant keeps, as part of the nightly consolidation: the user's people
// and things with live memories written or changed since `since` (the previous run), most mentioned first, each get
// a new summary from their newest memories and current relations. "The memories that mention it" are query_graph's
// (graph.ts: mentionsEntitySql); the text comes from an injected `summarise` (the node asks the chat model through
// the gateway with entitySummaryRequest). The user's own entity is left out: every memory is about the user.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { relationLine } from '../context/graph-context';
import { ENTITY_SUMMARY_CHARS } from '../memory/entity-summary-request';
import { requireDate } from '../schedule/zone';
import { getUserSettings } from '../settings/settings';
import { normaliseName, optionalInt, requireUserId } from '../validate';
import { USER_ENTITY_NAME, type EntityType } from './entities';
import { LIVE_CONFIRMED_SQL, mentionsEntitySql, queryGraph, type GraphQueryResult } from './graph';

/** At most this many entities are re-summarised per run, unless told. */
export const ENTITY_SUMMARY_LIMIT = 10;
/** A summary is written from at most this many of the entity's newest memories. */
export const ENTITY_SUMMARY_MEMORIES = 30;
/** …and at most this many of its newest current relations. */
const MAX_RELATIONS = 30;
/** A longer memory is cut to this many characters for the request. */
const MAX_FACT_CHARS = 2000;

/** An entity and what is kept about it (dated memories, oldest first, then current relations) → its summary. */
export type SummariseEntity = (entity: { name: string; type: EntityType; facts: string[] }) => Promise<string>;

export interface EntitySummaryOptions {
  now: Date;
  /** Only entities with memories created or updated after this (the previous run); null: every entity. */
  since: Date | null;
  summarise: SummariseEntity;
  /** At most this many entities (1-100, default ENTITY_SUMMARY_LIMIT). */
  limit?: unknown;
  /** Asked before each entity: true stops the refresh there (a run's time limit). */
  stopped?: () => boolean;
}

/** Rewrites the summaries of the entities due (see top) and returns their names, in the order they were written. */
export async function refreshEntitySummaries(
  db: Queryable,
  userIdInput: unknown,
  options: EntitySummaryOptions,
): Promise<string[]> {
  const userId = requireUserId(userIdInput);
  const now = requireDate(options?.now);
  const since = options.since == null ? null : requireDate(options.since, 'since');
  const limit = optionalInt(options.limit, 'limit', 1, 100) ?? ENTITY_SUMMARY_LIMIT;
  if (typeof options.summarise !== 'function') throw new AssistantInputError('summarise', 'must be a function');
  const summarised: string[] = [];
  for (const entity of await entitiesMentionedSince(db, userId, since, limit)) {
    if (options.stopped?.()) break;
    const graph = await queryGraph(db, userId, entity.name, { depth: 1, memoryLimit: ENTITY_SUMMARY_MEMORIES, now });
    const facts = factsOf(graph, now);
    const summary = requireEntitySummary(
      await options.summarise({ name: entity.name, type: entity.type, facts }),
      entity.name,
    );
    await db.query(`UPDATE assistant.entities SET summary = $3, updated_at = $4 WHERE user_id = $1 AND id = $2`, [
      userId,
      entity.id,
      summary,
      now,
    ]);
    summarised.push(entity.name);
  }
  return summarised;
}

/** The entity's memories (dated, oldest first) and then its current relations, as lines. */
function factsOf(graph: GraphQueryResult, now: Date): string[] {
  const { name } = graph.entity;
  return [
    ...[...graph.memories]
      .reverse()
      .map((memory) => `${memory.createdAt.slice(0, 10)}: ${memory.content.slice(0, MAX_FACT_CHARS)}`),
    ...graph.relations
      .filter((relation) => relation.from === name || relation.to === name)
      .slice(-MAX_RELATIONS)
      .map((relation) => relationLine(relation, now)),
  ];
}

/** The user's entities (not the user) mentioned by a live memory created or updated after `since`, most mentioned first. */
async function entitiesMentionedSince(
  db: Queryable,
  userId: string,
  since: Date | null,
  limit: number,
): Promise<Array<{ id: number; name: string; type: EntityType }>> {
  const { language } = await getUserSettings(db, userId);
  const result = await db.query(
    `SELECT e.id, e.name, e.type
       FROM assistant.entities e
       CROSS JOIN LATERAL (
         SELECT count(*) AS mentions, max(greatest(m.created_at, m.updated_at)) AS latest
           FROM assistant.memories m
          WHERE m.user_id = e.user_id AND ${LIVE_CONFIRMED_SQL('m')}
            AND ${mentionsEntitySql('m', 'e.normalized_name', '$2', 'e.name')}
       ) mentioned
      WHERE e.user_id = $1 AND e.normalized_name <> $3 AND mentioned.mentions > 0
        AND ($4::timestamptz IS NULL OR mentioned.latest > $4)
      ORDER BY mentioned.mentions DESC, mentioned.latest DESC, e.id
      LIMIT $5`,
    [userId, language, normaliseName(USER_ENTITY_NAME), since, limit],
  );
  return result.rows.map((row) => ({ id: Number(row.id), name: row.name as string, type: row.type as EntityType }));
}

function requireEntitySummary(text: unknown, name: string): string {
  const summary = typeof text === 'string' ? text.trim() : '';
  if (summary === '' || summary.length > ENTITY_SUMMARY_CHARS)
    throw new AssistantInputError(
      'entitySummary',
      `the summary of "${name}" must be a text of 1 to ${ENTITY_SUMMARY_CHARS} characters`,
    );
  return summary;
}
