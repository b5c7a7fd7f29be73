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
  createdAt: string;
  updatedAt: string;
}

/** The columns every query that returns memories selects (see toMemory). */
export const MEMORY_COLUMNS = 'id, content, kind, importance, tags, people, entities, source, created_at, updated_at';

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
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}
