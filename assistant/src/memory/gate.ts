// The write gate: every memory the agent or capture stores passes it. A near-duplicate is dropped (naming the memory
// it repeats); a fact of the same subject that says it changes it supersedes the old one (kept as history, never
// recalled); one that disagrees without saying so is kept beside it, marked; a fact captured from a turn that carried
// outside content is stored unconfirmed and never replaces a confirmed one. The rules are in gate-text.ts.
import type { Pool } from 'pg';
import { resolveEntity, type Entity } from '../graph/entities';
import { withTransaction, type Queryable } from '../storage/db';
import { getUserSettings } from '../settings/settings';
import { AssistantNotFoundError } from '../errors';
import { normaliseName, requirePositiveInt, requireUserId } from '../validate';
import type { EmbeddingOutcome } from './embed';
import { EmbeddingError, type Embedder } from './embeddings';
import { embeddingDuplicate, factWords, saysChange, textDuplicate } from './gate-text';
import { MEMORY_COLUMNS, toMemory, type Memory } from './model';
import { searchTerms } from './search-terms';
import { insertMemory, memoryFields, type MemoryFields, type MemoryInput } from './store';

export interface GateOptions {
  /** Embeds the new fact: stored with it, and compared with the stored embeddings for near-duplicates. */
  embedder?: Embedder;
  /** When a superseded memory stopped being current (default: now). */
  now?: Date;
  /** false for a fact captured from a turn that carried outside content (default true). */
  confirmed?: boolean;
}

export interface GateResult {
  /** stored: a new memory; duplicate: nothing stored, `memory` is the existing one it repeats. */
  outcome: 'stored' | 'duplicate';
  memory: Memory;
  duplicateOf?: { id: number; content: string; by: 'words' | 'embedding'; similarity: number };
  /** The earlier memories of the same subject this one replaced (now history). */
  superseded: Memory[];
  /** The earlier memory of the same subject this one disagrees with (both kept). */
  contradicts?: { id: number; content: string };
  /** The graph entities of the people and things it names (created or merged; none for an unconfirmed fact). */
  linked: Entity[];
  embedding: EmbeddingOutcome;
}

/** Near-duplicates by words are looked for among this many stored memories sharing words with the new one. */
export const GATE_WORD_CANDIDATES = 50;
/** Near-duplicates by embedding are looked for among this many of the newest embedded memories. */
export const GATE_EMBEDDING_CANDIDATES = 2000;

/** Runs the gate's reads and writes for one user at a time (two captures must not both store the same fact). */
export async function underUserLock<T>(db: Queryable, userId: string, work: (db: Queryable) => Promise<T>): Promise<T> {
  const locked = async (client: Queryable) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('assistant.memory-gate'), hashtext($1))`, [userId]);
    return work(client);
  };
  // A pool: a transaction of our own. A client: the caller's transaction (if any) holds the lock.
  return 'totalCount' in db ? withTransaction(db as Pool, locked) : locked(db);
}

/** Stores a memory through the write gate. Input errors name the field, as remember's do. */
export async function rememberThroughGate(
  db: Queryable,
  userIdInput: unknown,
  input: MemoryInput,
  options: GateOptions = {},
): Promise<GateResult> {
  const userId = requireUserId(userIdInput);
  const fields = memoryFields(input);
  const confirmed = options.confirmed ?? true;
  const { vector, embedding } = await embedFact(fields.content, options.embedder);
  return underUserLock(db, userId, async (tx) => {
    const words = factWords(fields.content);
    const duplicate =
      (await wordDuplicate(tx, userId, fields.content, words)) ??
      (vector && options.embedder
        ? await nearestByEmbedding(tx, userId, fields, words, vector, options.embedder.model)
        : undefined);
    if (duplicate) {
      // The user saying it themselves confirms a fact captured from outside content.
      const existing = confirmed && !duplicate.memory.confirmed ? await confirmMemoryRow(tx, duplicate.memory) : null;
      return {
        outcome: 'duplicate' as const,
        memory: existing ?? duplicate.memory,
        duplicateOf: { id: duplicate.memory.id, content: duplicate.memory.content, ...duplicate.match },
        superseded: [],
        linked: [],
        embedding,
      };
    }
    const sameSubject = fields.subjectKey ? await currentOfSubject(tx, userId, fields.subjectKey) : [];
    // A change supersedes; an unconfirmed fact never replaces a confirmed one.
    const supersedes =
      sameSubject.length > 0 && saysChange(fields.content) && (confirmed || sameSubject.every((m) => !m.confirmed));
    const contradicted = !supersedes ? sameSubject.at(-1) : undefined;
    const memory = await insertMemory(tx, userId, fields, {
      confirmed,
      contradicts: contradicted?.id ?? null,
      embedding: vector && options.embedder ? { vector, model: options.embedder.model } : undefined,
    });
    const superseded = supersedes ? await supersede(tx, userId, sameSubject, memory.id, options.now ?? new Date()) : [];
    const linked = confirmed ? await linkEntities(tx, userId, memory) : { memory, entities: [] };
    return {
      outcome: 'stored' as const,
      memory: linked.memory,
      superseded,
      linked: linked.entities,
      ...(contradicted ? { contradicts: { id: contradicted.id, content: contradicted.content } } : {}),
      embedding,
    };
  });
}

/** The fact's embedding, when an embedder is given; an endpoint failure is reported, never thrown. */
async function embedFact(
  content: string,
  embedder: Embedder | undefined,
): Promise<{ vector?: number[]; embedding: EmbeddingOutcome }> {
  if (!embedder) return { embedding: { status: 'off' } };
  try {
    const [vector] = await embedder.embed([content]);
    return { vector, embedding: { status: 'stored', model: embedder.model, dimensions: vector.length } };
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    return {
      embedding: {
        status: 'failed',
        model: embedder.model,
        error: `${error.message}; the memory is stored without an embedding (duplicates checked by words)`,
      },
    };
  }
}

interface Duplicate {
  memory: Memory;
  match: { by: 'words' | 'embedding'; similarity: number };
}

/** The current memory the fact repeats by words (same words in any order, or an overlap of DUPLICATE_WORD_OVERLAP). */
async function wordDuplicate(
  db: Queryable,
  userId: string,
  content: string,
  words: string[],
): Promise<Duplicate | undefined> {
  const { language } = await getUserSettings(db, userId);
  const { tsquery } = await searchTerms(db, language, content);
  const result = await db.query(
    `SELECT ${MEMORY_COLUMNS} FROM assistant.memories
      WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL AND (content_key = $2 OR ($3::tsquery IS NOT NULL AND search_vector @@ $3::tsquery))
      ORDER BY content_key = $2 DESC, CASE WHEN $3::tsquery IS NULL THEN 0 ELSE ts_rank_cd(search_vector, $3::tsquery) END DESC, id
      LIMIT $4`,
    [userId, words.join(' '), tsquery, GATE_WORD_CANDIDATES],
  );
  let best: Duplicate | undefined;
  for (const row of result.rows) {
    const memory = toMemory(row);
    const overlap = textDuplicate(words, factWords(memory.content));
    if (overlap !== null && (!best || overlap > best.match.similarity))
      best = { memory, match: { by: 'words', similarity: Number(overlap.toFixed(4)) } };
  }
  return best;
}

/**
 * The current memory the fact repeats by embedding (cosine at least DUPLICATE_COSINE, same numbers), among the newest
 * embedded memories of the same model. Memories of the same subject are left to the subject rule: "Anna is my
 * accountant" and "Stefan is my accountant" embed alike, yet one corrects the other.
 */
async function nearestByEmbedding(
  db: Queryable,
  userId: string,
  fields: MemoryFields,
  words: string[],
  vector: number[],
  model: string,
): Promise<Duplicate | undefined> {
  const result = await db.query(
    `SELECT ${MEMORY_COLUMNS}, similarity FROM (
       SELECT m.*, (SELECT sum(a::float8 * b::float8) FROM unnest(m.embedding, $3::real[]) AS v(a, b)) AS similarity
         FROM (SELECT * FROM assistant.memories
                WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL AND embedding_model = $2
                  AND cardinality(embedding) = cardinality($3::real[]) AND ($4::text IS NULL OR subject_key IS DISTINCT FROM $4)
                ORDER BY created_at DESC LIMIT $5) m
     ) scored ORDER BY similarity DESC, id LIMIT 5`,
    [userId, model, vector, fields.subjectKey, GATE_EMBEDDING_CANDIDATES],
  );
  for (const row of result.rows) {
    const memory = toMemory(row);
    const similarity = Number(row.similarity);
    if (embeddingDuplicate(words, factWords(memory.content), similarity))
      return { memory, match: { by: 'embedding', similarity: Number(similarity.toFixed(4)) } };
  }
  return undefined;
}

/** The current (not superseded) memories of a subject, oldest first. */
async function currentOfSubject(db: Queryable, userId: string, subject: string): Promise<Memory[]> {
  const result = await db.query(
    `SELECT ${MEMORY_COLUMNS} FROM assistant.memories
      WHERE user_id = $1 AND subject_key = $2 AND superseded_at IS NULL AND folded_at IS NULL ORDER BY created_at, id`,
    [userId, subject],
  );
  return result.rows.map(toMemory);
}

async function supersede(db: Queryable, userId: string, old: Memory[], byId: number, now: Date): Promise<Memory[]> {
  const result = await db.query(
    `UPDATE assistant.memories SET superseded_by = $3, superseded_at = $4
      WHERE user_id = $1 AND id = ANY($2::bigint[]) AND superseded_at IS NULL RETURNING ${MEMORY_COLUMNS}`,
    [userId, old.map((memory) => memory.id), byId, now],
  );
  return result.rows.map(toMemory).sort((a, b) => a.id - b.id);
}

/**
 * The memory's people become person entities and its other names entities (merged by name and alias); the names
 * the graph knows them by join the memory's name keys, so query_graph finds it under "Stefan Huber" when it said
 * "Stefan".
 */
async function linkEntities(
  db: Queryable,
  userId: string,
  memory: Memory,
): Promise<{ memory: Memory; entities: Entity[] }> {
  const entities: Entity[] = [];
  for (const name of memory.people) entities.push(await resolveEntity(db, userId, { name, type: 'person' }));
  for (const name of memory.entities) entities.push(await resolveEntity(db, userId, { name }));
  if (entities.length === 0) return { memory, entities };
  const keys = [...new Set(entities.map((entity) => normaliseName(entity.name)))];
  const result = await db.query(
    `UPDATE assistant.memories SET name_keys = ARRAY(SELECT DISTINCT k FROM unnest(name_keys || $3::text[]) AS k)
      WHERE user_id = $1 AND id = $2 RETURNING ${MEMORY_COLUMNS}`,
    [userId, memory.id, keys],
  );
  return { memory: toMemory(result.rows[0]), entities };
}

async function confirmMemoryRow(db: Queryable, memory: Memory): Promise<Memory> {
  const result = await db.query(
    `UPDATE assistant.memories SET confirmed = true, updated_at = now() WHERE id = $1 RETURNING ${MEMORY_COLUMNS}`,
    [memory.id],
  );
  return toMemory(result.rows[0]);
}

/** The user confirms a fact captured from outside content: from then on it is recalled like any other. */
export async function confirmMemory(db: Queryable, userIdInput: unknown, idInput: unknown): Promise<Memory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const result = await db.query(
    `UPDATE assistant.memories SET confirmed = true, updated_at = now() WHERE user_id = $1 AND id = $2
     RETURNING ${MEMORY_COLUMNS}`,
    [userId, id],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toMemory(result.rows[0]);
}
