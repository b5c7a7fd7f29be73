// Relations of the knowledge graph: "<from> <type> <to>" with validity times, never duplicated. A single-valued
// relation has one current value: a new accountant of the user ends the old one's "accountant_of" at that moment.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { optionalInt, optionalText, optionalTimestamp, requireText, requireUserId } from '../validate';
import { requireEntityName, resolveEntity } from './entities';

export interface Relation {
  id: number;
  from: string;
  type: string;
  to: string;
  validFrom: string | null;
  validTo: string | null;
}

/** One holder at a time for the same `to`: "Anna accountant_of the user" ends "Stefan accountant_of the user". */
export const SINGLE_HOLDER_RELATIONS: readonly string[] = [
  'accountant_of',
  'tax_advisor_of',
  'lawyer_of',
  'doctor_of',
  'dentist_of',
  'landlord_of',
  'boss_of',
  'manager_of',
  'spouse_of',
  'ceo_of',
];
/** One `to` at a time for the same holder: "the user lives_in Graz" ends "the user lives_in Vienna". */
export const SINGLE_TARGET_RELATIONS: readonly string[] = ['lives_in', 'married_to', 'reports_to', 'based_in'];

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

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);

export interface RelateInput {
  from?: unknown;
  relation?: unknown;
  to?: unknown;
  validFrom?: unknown;
  validTo?: unknown;
  /** The quoted words the relation came from. */
  evidence?: unknown;
}

export interface RecordedRelation extends Relation {
  created: boolean;
  /** Current relations of a single-valued type this one ended (their validTo is now set). */
  ended: Relation[];
}

/**
 * Records "<from> <relation> <to>" (ends resolved and merged as resolveEntity does, created as "other" when new). A
 * relation the same as a current one (or with the same validity times) is reused. When the type is single-valued,
 * the other current relations of that type it replaces end when this one starts (validFrom, else `now`).
 */
export async function relate(
  db: Queryable,
  userIdInput: unknown,
  input: RelateInput,
  now: Date = new Date(),
): Promise<RecordedRelation> {
  const userId = requireUserId(userIdInput);
  const fromName = requireEntityName(input.from, 'from');
  const toName = requireEntityName(input.to, 'to');
  const type = relationType(input.relation);
  const validFrom = optionalTimestamp(input.validFrom, 'validFrom') ?? null;
  const validTo = optionalTimestamp(input.validTo, 'validTo') ?? null;
  const evidence = optionalText(input.evidence, 'evidence', 2000)?.trim() || null;
  if (validFrom && validTo && validTo < validFrom)
    throw new AssistantInputError('validTo', 'must not be before validFrom');
  const from = await resolveEntity(db, userId, { name: fromName });
  const to = await resolveEntity(db, userId, { name: toName });
  const named = { from: from.name, type, to: to.name };
  const existing = await db.query(
    `SELECT id, valid_from, valid_to FROM assistant.relations
      WHERE user_id = $1 AND from_entity_id = $2 AND to_entity_id = $3 AND type = $4
        AND ((valid_from IS NOT DISTINCT FROM $5 AND valid_to IS NOT DISTINCT FROM $6)
          OR ($5::timestamptz IS NULL AND $6::timestamptz IS NULL AND (valid_to IS NULL OR valid_to > $7)))
      ORDER BY id LIMIT 1`,
    [userId, from.id, to.id, type, validFrom, validTo, now],
  );
  if (existing.rows[0]) {
    const row = existing.rows[0];
    return {
      id: Number(row.id),
      ...named,
      validFrom: iso(row.valid_from),
      validTo: iso(row.valid_to),
      created: false,
      ended: [],
    };
  }
  const ended = validTo && validTo <= now ? [] : await endReplaced(db, userId, type, from.id, to.id, validFrom ?? now);
  const inserted = await db.query(
    `INSERT INTO assistant.relations (user_id, from_entity_id, to_entity_id, type, valid_from, valid_to, evidence)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, valid_from, valid_to`,
    [userId, from.id, to.id, type, validFrom, validTo, evidence],
  );
  const row = inserted.rows[0];
  return {
    id: Number(row.id),
    ...named,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
    created: true,
    ended,
  };
}

/** Ends the current relations a new single-valued one replaces, at `at` (or at their start, if that is later). */
async function endReplaced(
  db: Queryable,
  userId: string,
  type: string,
  fromId: number,
  toId: number,
  at: Date,
): Promise<Relation[]> {
  const holder = SINGLE_HOLDER_RELATIONS.includes(type);
  if (!holder && !SINGLE_TARGET_RELATIONS.includes(type)) return [];
  const result = await db.query(
    `UPDATE assistant.relations r SET valid_to = greatest($5::timestamptz, r.valid_from)
       FROM assistant.entities f, assistant.entities t
      WHERE r.user_id = $1 AND r.type = $2 AND (r.valid_to IS NULL OR r.valid_to > $5)
        AND ${holder ? 'r.to_entity_id = $4 AND r.from_entity_id <> $3' : 'r.from_entity_id = $3 AND r.to_entity_id <> $4'}
        AND f.user_id = r.user_id AND f.id = r.from_entity_id AND t.user_id = r.user_id AND t.id = r.to_entity_id
      RETURNING r.id, f.name AS from_name, r.type, t.name AS to_name, r.valid_from, r.valid_to`,
    [userId, type, fromId, toId, at],
  );
  return result.rows.map(toRelation).sort((a, b) => a.id - b.id);
}

export function toRelation(row: Record<string, unknown>): Relation {
  return {
    id: Number(row.id),
    from: row.from_name as string,
    type: row.type as string,
    to: row.to_name as string,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
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
  return toRelation(result.rows[0]);
}
