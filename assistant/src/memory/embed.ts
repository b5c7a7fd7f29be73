// Embedding stored memories: the vector of a memory's content, saved next to it for recall. An endpoint failure
// never loses the memory.
import type { Queryable } from '../storage/db';
import { requireUserId } from '../validate';
import { EmbeddingError, type Embedder } from './embeddings';
import { rememberThroughGate, type GateOptions, type GateResult } from './gate';
import type { Memory } from './model';
import { updateMemory, type MemoryInput } from './store';

/** What happened to an embedding: none configured, stored/used, or failed (the memory itself is kept). */
export interface EmbeddingOutcome {
  status: 'off' | 'stored' | 'used' | 'failed';
  model?: string;
  dimensions?: number;
  error?: string;
}

/**
 * Embeds a stored memory's content and saves the vector. An endpoint failure is reported in the outcome, never
 * thrown: the memory stays stored, recall finds it by words and names, and a later update embeds it again.
 */
export async function embedMemory(
  db: Queryable,
  memory: Memory,
  userId: string,
  embedder: Embedder,
): Promise<EmbeddingOutcome> {
  let vector: number[];
  try {
    [vector] = await embedder.embed([memory.content]);
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    return {
      status: 'failed',
      model: embedder.model,
      error: `${error.message}; the memory is stored without an embedding`,
    };
  }
  // Only if the content is still the one embedded (a concurrent update wins).
  await db.query(
    `UPDATE assistant.memories SET embedding = $4::real[], embedding_model = $5 WHERE user_id = $1 AND id = $2 AND content = $3`,
    [userId, memory.id, memory.content, vector, embedder.model],
  );
  return { status: 'stored', model: embedder.model, dimensions: vector.length };
}

/**
 * The remember_memory path: stores through the write gate (gate.ts), embedded when an embedder is given (an endpoint
 * failure loses nothing). A near-duplicate stores nothing: `outcome` is "duplicate" and `memory` the one it repeats.
 */
export async function rememberAndEmbed(
  db: Queryable,
  userIdInput: unknown,
  input: MemoryInput,
  embedder?: Embedder,
  options: Omit<GateOptions, 'embedder'> = {},
): Promise<GateResult> {
  return rememberThroughGate(db, userIdInput, input, { ...options, embedder });
}

/** updateMemory, then embed the new content when it changed (or has no embedding yet) and an embedder is given. */
export async function updateAndEmbed(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  input: MemoryInput,
  embedder?: Embedder,
): Promise<{ memory: Memory; embedding: EmbeddingOutcome }> {
  const memory = await updateMemory(db, userIdInput, idInput, input);
  if (!embedder) return { memory, embedding: { status: 'off' } };
  const userId = requireUserId(userIdInput);
  const current = await db.query(`SELECT embedding_model FROM assistant.memories WHERE user_id = $1 AND id = $2`, [
    userId,
    memory.id,
  ]);
  if (current.rows[0]?.embedding_model === embedder.model)
    return { memory, embedding: { status: 'stored', model: embedder.model } };
  return { memory, embedding: await embedMemory(db, memory, userId, embedder) };
}
