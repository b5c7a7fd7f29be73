// Optional embeddings in memory recall, on a real Postgres 17 (no pgvector: the real[] re-ranking path) and the
// loopback OpenAI fake's /v1/embeddings (deterministic unit vectors: equal texts embed equally). Also an endpoint
// that refuses the key and one that is not there: memories are still stored, and the outcome says so.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { useFakeEmbeddings } from './fake-embedder';
import { createUser } from '../helpers';

const KEY = 'sk-embeddings-test-key';
const db = useAssistantDatabase();
const embeddings = useFakeEmbeddings({ key: KEY, model: 'text-embedding-3-small', dimensions: 256 });

const newUser = (name: string) => createUser(db.pool, name);

async function storedEmbedding(id: number): Promise<{ embedding: number[] | null; embedding_model: string | null }> {
  return (await db.pool.query('SELECT embedding, embedding_model FROM assistant.memories WHERE id = $1', [id])).rows[0];
}

describe('remember and recall with embeddings (no pgvector: cosine re-ranking on real[])', () => {
  it('stores the unit vector and model with the memory', async () => {
    const userId = await newUser('embed');
    const { memory, embedding } = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'My bike is a green Brompton' },
      embeddings.embedder,
    );
    expect(embedding).toEqual({ status: 'stored', model: 'text-embedding-3-small', dimensions: 256 });
    const row = await storedEmbedding(memory.id);
    expect(row.embedding_model).toBe('text-embedding-3-small');
    const [expected] = await embeddings.embedder.embed(['My bike is a green Brompton']);
    expect(row.embedding).toHaveLength(256);
    row.embedding!.forEach((value, i) => expect(value).toBeCloseTo(expected[i], 5));
  });

  it('finds a memory by its embedding alone, where words and names find nothing', async () => {
    const userId = await newUser('semantic');
    // Only stop words: no lexeme and no name to search by.
    const { memory } = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'To be or not to be' },
      embeddings.embedder,
    );
    await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'The boiler needs a service in October' },
      embeddings.embedder,
    );
    expect(await assistant.recall(db.pool, userId, 'to be or not to be')).toEqual([]);
    const found = await assistant.recallWithEmbedding(db.pool, userId, 'To be or not to be', {
      embedder: embeddings.embedder,
    });
    expect(found.embedding).toMatchObject({ status: 'used', dimensions: 256 });
    expect(found.memories.map((m) => m.id)).toEqual([memory.id]);
  });

  it('re-ranks the word matches by similarity', async () => {
    const userId = await newUser('rerank');
    const important = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'Coffee with Anna on Friday', importance: 5 },
      embeddings.embedder,
    );
    const close = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'coffee', importance: 1 },
      embeddings.embedder,
    );
    const plain = await assistant.recall(db.pool, userId, 'coffee');
    expect(plain.map((m) => m.id)).toEqual([important.memory.id, close.memory.id]);
    const semantic = await assistant.recall(db.pool, userId, 'coffee', { embedder: embeddings.embedder });
    expect(semantic.map((m) => m.id)).toEqual([close.memory.id, important.memory.id]);
    expect(semantic[0].score).toBeGreaterThan(plain.find((m) => m.id === close.memory.id)!.score + 0.3);
  });

  it("ignores embeddings of another model or dimension, and another user's memories", async () => {
    const userId = await newUser('models');
    const other = await newUser('other');
    const { memory } = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'To be or not to be' },
      embeddings.embedder,
    );
    await assistant.rememberAndEmbed(db.pool, other, { content: 'To be or not to be' }, embeddings.embedder);
    const otherModel = assistant.openAiEmbedder({
      baseUrl: `${embeddings.fake.url}/v1`,
      apiKey: KEY,
      model: 'another-model',
      dimensions: 256,
    });
    expect(await assistant.recall(db.pool, userId, 'To be or not to be', { embedder: otherModel })).toEqual([]);
    expect(
      (await assistant.recall(db.pool, userId, 'To be or not to be', { embedder: embeddings.embedder })).map(
        (m) => m.id,
      ),
    ).toEqual([memory.id]);
  });

  it('drops a stale embedding when the content changes, and updateAndEmbed makes a new one', async () => {
    const userId = await newUser('update');
    const { memory } = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'To be or not to be' },
      embeddings.embedder,
    );
    await assistant.updateMemory(db.pool, userId, memory.id, { importance: 4 });
    expect((await storedEmbedding(memory.id)).embedding_model).toBe('text-embedding-3-small');
    await assistant.updateMemory(db.pool, userId, memory.id, { content: 'Let it be' });
    expect(await storedEmbedding(memory.id)).toEqual({ embedding: null, embedding_model: null });
    const updated = await assistant.updateAndEmbed(
      db.pool,
      userId,
      memory.id,
      { content: 'Let it be, let it be' },
      embeddings.embedder,
    );
    expect(updated.embedding).toMatchObject({ status: 'stored' });
    const found = await assistant.recall(db.pool, userId, 'Let it be, let it be', { embedder: embeddings.embedder });
    expect(found.map((m) => m.id)).toEqual([memory.id]);
  });

  it('checks minSimilarity', async () => {
    const userId = await newUser('min');
    await expect(
      assistant.recall(db.pool, userId, 'x', { embedder: embeddings.embedder, minSimilarity: 'high' }),
    ).rejects.toMatchObject({
      field: 'minSimilarity',
    });
    await expect(
      assistant.recall(db.pool, userId, 'x', { embedder: embeddings.embedder, minSimilarity: 2 }),
    ).rejects.toMatchObject({
      field: 'minSimilarity',
    });
  });
});

describe('a failing embeddings endpoint loses nothing', () => {
  const failing = () =>
    assistant.openAiEmbedder({
      baseUrl: `${embeddings.fake.url}/v1`,
      apiKey: 'sk-revoked-key',
      model: 'text-embedding-3-small',
    });

  it('remember stores the memory, says the embedding failed and why, and recall still finds it by words', async () => {
    const userId = await newUser('failing');
    const result = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'The spare key is under the blue flowerpot' },
      failing(),
    );
    expect(result.embedding.status).toBe('failed');
    expect(result.embedding.error).toMatch(/401.*the memory is stored without an embedding/);
    expect(JSON.stringify(result)).not.toContain('sk-revoked-key');
    expect(await assistant.getMemory(db.pool, userId, result.memory.id)).toMatchObject({
      content: 'The spare key is under the blue flowerpot',
    });
    expect(await storedEmbedding(result.memory.id)).toEqual({ embedding: null, embedding_model: null });

    const recalled = await assistant.recallWithEmbedding(db.pool, userId, 'where is the spare key?', {
      embedder: failing(),
    });
    expect(recalled.embedding.status).toBe('failed');
    expect(recalled.embedding.error).toMatch(/recalled without embeddings/);
    expect(recalled.memories.map((m) => m.id)).toEqual([result.memory.id]);
  });

  it('an unreachable endpoint: the same', async () => {
    const userId = await newUser('unreachable');
    const absent = assistant.openAiEmbedder({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: KEY,
      model: 'm',
      timeoutMs: 2000,
    });
    const result = await assistant.rememberAndEmbed(db.pool, userId, { content: 'Dentist on the 3rd of May' }, absent);
    expect(result.embedding).toMatchObject({ status: 'failed' });
    expect((await assistant.recall(db.pool, userId, 'dentist')).map((m) => m.id)).toEqual([result.memory.id]);
  });
});
