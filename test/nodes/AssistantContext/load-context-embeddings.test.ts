// Load Context with the optional Assistant Embeddings API credential, on a real Postgres 17 and the loopback OpenAI
// fake's /v1/embeddings: the automatic recall before each turn finds a memory by meaning; the credential an install
// with embeddings off renders (no base URL) and no credential recall by words only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiEmbedder, rememberAndEmbed, resolveIdentity } from 'assistant-core';

import { AssistantContext } from '../../../nodes/AssistantContext/AssistantContext.node';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../fakes/openai-chat';
import { runNode } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const KEY = 'sk-context-embeddings-key';
let db: NodeDatabase;
let openai: OpenAiChatFake;

beforeAll(async () => {
  [db, openai] = await Promise.all([startNodeDatabase({ migrated: true }), startOpenAiChatFake({ apiKey: KEY })]);
});
afterAll(async () => {
  await Promise.all([db?.stop(), openai?.close()]);
});

async function loadContext(userId: string, embeddings: Record<string, unknown> | undefined) {
  const [output] = await runNode(new AssistantContext(), {
    parameters: [{ operation: 'loadContext', userId, sessionId: 's', message: 'To be or not to be', memoryLimit: 8 }],
    credentials: { postgres: db.credential, assistantEmbeddingsApi: embeddings },
    nodeCredentials: embeddings
      ? { assistantEmbeddingsApi: { id: 'asstEmbeddings01', name: 'Embeddings' } }
      : undefined,
  });
  return output[0].json as { memories: Array<{ id: number }>; contextBlock: string };
}

describe('Load Context with the Assistant Embeddings API credential', () => {
  it('recalls a memory by meaning before the turn; off or without the credential, by words only', async () => {
    const { userId } = await resolveIdentity(db.pool, 'api', `context-embeddings-${Date.now()}`);
    const credential = { baseUrl: `${openai.url}/v1`, apiKey: KEY, model: 'text-embedding-3-small', dimensions: 0 };
    const embedder = openAiEmbedder(credential);
    const { memory } = await rememberAndEmbed(db.pool, userId, { content: 'To be or not to be' }, embedder);

    const withEmbeddings = await loadContext(userId, credential);
    expect(withEmbeddings.memories.map((m) => m.id)).toEqual([memory.id]);
    expect(withEmbeddings.contextBlock).toContain(`[${memory.id}] To be or not to be`);
    expect((await loadContext(userId, { ...credential, baseUrl: '' })).memories).toEqual([]);
    expect((await loadContext(userId, undefined)).memories).toEqual([]);
  });
});
