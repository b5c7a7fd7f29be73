// The Assistant Memory node with the optional Assistant Embeddings API credential, on a real Postgres 17 and the
// loopback OpenAI fake's /v1/embeddings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';

import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../fakes/openai-chat';
import { runNode } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const KEY = 'sk-embeddings-test-key';
let db: NodeDatabase;
let openai: OpenAiChatFake;

beforeAll(async () => {
  [db, openai] = await Promise.all([startNodeDatabase({ migrated: true }), startOpenAiChatFake({ apiKey: KEY })]);
});
afterAll(async () => {
  await Promise.all([db?.stop(), openai?.close()]);
});

async function newUser(name: string): Promise<string> {
  return (await resolveIdentity(db.pool, 'api', `${name}-${Math.random().toString(36).slice(2)}`)).userId;
}

describe('the Assistant Memory node with the Assistant Embeddings API credential', () => {
  async function runMemoryNode(items: Record<string, unknown>[], embeddings: Record<string, unknown> | undefined) {
    const [output] = await runNode(new AssistantMemory(), {
      parameters: items,
      credentials: { postgres: db.credential, assistantEmbeddingsApi: embeddings },
      nodeCredentials: embeddings ? { assistantEmbeddingsApi: { id: '1', name: 'Embeddings' } } : undefined,
    });
    return output.map((item) => item.json);
  }

  it('embeds on remember and recalls by embedding; without the credential it says "off"', async () => {
    const userId = await newUser('node');
    const credential = { baseUrl: `${openai.url}/v1`, apiKey: KEY, model: 'text-embedding-3-small', dimensions: 128 };
    const [remembered] = await runMemoryNode(
      [{ operation: 'remember', userId, content: 'To be or not to be', details: {} }],
      credential,
    );
    expect(remembered.embedding).toEqual({ status: 'stored', model: 'text-embedding-3-small', dimensions: 128 });
    const [recalled] = await runMemoryNode(
      [{ operation: 'recall', userId, query: 'To be or not to be', limit: 5, kindFilter: '' }],
      credential,
    );
    expect(recalled).toMatchObject({ count: 1, embedding: { status: 'used' } });
    const [plain] = await runMemoryNode(
      [{ operation: 'recall', userId, query: 'To be or not to be', limit: 5, kindFilter: '' }],
      undefined,
    );
    expect(plain).toMatchObject({ count: 0, embedding: { status: 'off' } });
  });

  it('a failing endpoint: the memory is stored and the output says the embedding failed', async () => {
    const userId = await newUser('node-failing');
    const credential = {
      baseUrl: `${openai.url}/v1`,
      apiKey: 'sk-bad',
      model: 'text-embedding-3-small',
      dimensions: 0,
    };
    const [remembered] = await runMemoryNode(
      [{ operation: 'remember', userId, content: 'Parking spot 42 on level 3', details: {} }],
      credential,
    );
    expect(remembered.embedding).toMatchObject({ status: 'failed' });
    expect((remembered.memory as { content: string }).content).toBe('Parking spot 42 on level 3');
  });

  it('a bad credential setting is a node error naming the field', async () => {
    const userId = await newUser('node-bad');
    const credential = { baseUrl: 'ftp://example.com', apiKey: KEY, model: 'm', dimensions: 0 };
    await expect(runMemoryNode([{ operation: 'recall', userId, query: 'x' }], credential)).rejects.toThrow(
      /Assistant Embeddings API credential: baseUrl: /,
    );
  });
});
