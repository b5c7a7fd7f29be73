// A memory as stored in assistant.memories, and how a row becomes one.

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
  /** What the fact is about, normalised ("my accountant"); facts of the same subject may supersede each other. */
  subjectKey: string | null;
  /** The quoted words a captured fact came from. */
  evidence: string | null;
  /** False for a fact captured from a turn that carried outside content, until the user confirms it. */
  confirmed: boolean;
  /** The memory that replaced this one (then it is history: never recalled). */
  supersededBy: number | null;
  supersededAt: string | null;
  /** An earlier memory of the same subject this one disagrees with (both are kept). */
  contradicts: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The columns every query that returns memories selects (see toMemory). */
export const MEMORY_COLUMNS =
  'id, content, kind, importance, tags, people, entities, source, subject_key, evidence, confirmed, superseded_by, ' +
  'superseded_at, contradicts, created_at, updated_at';

export function toMemory(row: Record<string, unknown>): Memory {
  return {
    id: Number(row.id),
    content: row.content as string,
    kind: row.kind as MemoryKind,
    importance: Number(row.importance),
    tags: row.tags as string[],
    people: row.people as string[],
    entities: row.entities as string[],
    source: (row.source as string | null) ?? null,
    subjectKey: (row.subject_key as string | null) ?? null,
    evidence: (row.evidence as string | null) ?? null,
    confirmed: row.confirmed !== false,
    supersededBy: row.superseded_by == null ? null : Number(row.superseded_by),
    supersededAt: row.superseded_at instanceof Date ? row.superseded_at.toISOString() : null,
    contradicts: row.contradicts == null ? null : Number(row.contradicts),
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}
