// What the knowledge graph knows about the people and things a message names, for the per-turn context block: each
// named entity (by name or alias, whole words, any case) with its summary and current relations, and the user's own
// current relations whose type the message names ("who is my accountant?" → "Anna Berger accountant of the user").
// Within a character budget; never in the static system prompt.
import type { Queryable } from '../storage/db';
import { ENTITY_COLUMNS, toEntity, USER_ENTITY_NAME, type Entity } from '../graph/entities';
import { mentions } from '../graph/mentions';
import { toRelation, type Relation } from '../graph/relations';
import { normaliseName } from '../validate';

/** The graph's part of the context block is at most this many characters (about 400 tokens). */
export const GRAPH_CONTEXT_CHARS = 1600;
/** At most this many named entities are looked at, longest name first. */
const MAX_ENTITIES = 8;
/** Names are looked for as runs of up to this many words of the message. */
const MAX_NAME_WORDS = 6;
/** Words of a relation type that name nothing ("accountant_of" is named by "accountant"). */
const LINK_WORDS = new Set(['of', 'at', 'in', 'to', 'for', 'with', 'by', 'on', 'from', 'the', 'a', 'an', 'is', 'has']);

/** The message's runs of 1…MAX_NAME_WORDS words, normalised as names are ("Anna's" → "anna"). */
export function nameRuns(message: string, maxWords = MAX_NAME_WORDS): string[] {
  const words = message
    .slice(0, 10_000)
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}&]+|[^\p{L}\p{N}&.]+$/gu, '').replace(/['’]s$/u, ''))
    .map((word) => word.replace(/\.$/, ''))
    .filter(Boolean);
  const runs = new Set<string>();
  for (let start = 0; start < words.length; start++)
    for (let end = start + 1; end <= Math.min(words.length, start + maxWords); end++)
      runs.add(normaliseName(words.slice(start, end).join(' ')));
  return [...runs];
}

/** The words of a relation type that name it: "accountant_of" → ["accountant"]. */
export const relationWords = (type: string): string[] => type.split('_').filter((w) => w && !LINK_WORDS.has(w));

const day = (iso: string) => iso.slice(0, 10);

/** "Anna Berger accountant of the user (since 2027-02-11)"; "from" for a start still ahead. */
export function relationLine(relation: Relation, now: Date): string {
  const when = relation.validFrom
    ? ` (${new Date(relation.validFrom) <= now ? 'since' : 'from'} ${day(relation.validFrom)})`
    : '';
  return `${relation.from} ${relation.type.replace(/_/g, ' ')} ${relation.to}${when}`;
}

function entityLine(entity: Entity): string {
  const aliases = entity.aliases.length > 0 ? `; also called ${entity.aliases.join(', ')}` : '';
  const summary = entity.summary ? `: ${entity.summary.replace(/\s+/g, ' ').slice(0, 300)}` : '';
  return `- ${entity.name} (${entity.type}${aliases})${summary}`;
}

const CURRENT = '(r.valid_to IS NULL OR r.valid_to > $3)';
const RELATION_SQL = `SELECT r.id, f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to
   FROM assistant.relations r
   JOIN assistant.entities f ON f.user_id = r.user_id AND f.id = r.from_entity_id
   JOIN assistant.entities t ON t.user_id = r.user_id AND t.id = r.to_entity_id
  WHERE r.user_id = $1 AND (r.from_entity_id = ANY($2::bigint[]) OR r.to_entity_id = ANY($2::bigint[])) AND ${CURRENT}
  ORDER BY r.id DESC LIMIT 60`;

/** The graph's lines for the context block (empty when the message names nothing the graph knows). */
export async function graphContext(
  db: Queryable,
  userId: string,
  message: string,
  now: Date,
  maxChars = GRAPH_CONTEXT_CHARS,
): Promise<string[]> {
  const runs = nameRuns(message);
  if (runs.length === 0) return [];
  const found = await db.query(
    `SELECT ${ENTITY_COLUMNS} FROM assistant.entities
      WHERE user_id = $1 AND normalized_name <> $3 AND (normalized_name = ANY($2::text[]) OR alias_keys && $2::text[])
      ORDER BY length(name) DESC, id LIMIT $4`,
    [userId, runs, USER_ENTITY_NAME, MAX_ENTITIES],
  );
  const named = found.rows.map(toEntity).filter((e) => [e.name, ...e.aliases].some((name) => mentions(message, name)));
  const user = await db.query<{ id: string }>(
    'SELECT id FROM assistant.entities WHERE user_id = $1 AND normalized_name = $2',
    [userId, USER_ENTITY_NAME],
  );
  const ids = [...named.map((e) => e.id), ...user.rows.map((row) => Number(row.id))];
  if (ids.length === 0) return [];
  const relations = (await db.query(RELATION_SQL, [userId, ids, now])).rows.map(toRelation).reverse();
  const lines: string[] = [];
  for (const entity of named) {
    lines.push(entityLine(entity));
    for (const relation of relations.filter((r) => r.from === entity.name || r.to === entity.name))
      lines.push(`  - ${relationLine(relation, now)}`);
  }
  const shown = new Set(relations.filter((r) => named.some((e) => r.from === e.name || r.to === e.name)));
  const asked = relations.filter(
    (r) =>
      !shown.has(r) &&
      (r.from === USER_ENTITY_NAME || r.to === USER_ENTITY_NAME) &&
      relationWords(r.type).some((word) => mentions(message, word)),
  );
  if (asked.length > 0) {
    lines.push(`- ${USER_ENTITY_NAME}:`);
    for (const relation of asked) lines.push(`  - ${relationLine(relation, now)}`);
  }
  return withinBudget(lines, maxChars);
}

/** The first lines that fit in maxChars (with their line breaks); an entity's line never without room for itself. */
function withinBudget(lines: string[], maxChars: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) break;
    kept.push(line);
    used += line.length + 1;
  }
  return kept;
}
