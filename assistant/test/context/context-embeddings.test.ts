// The automatic recall before each turn (loadContext) with embeddings on, on a real Postgres 17 and the loopback
// OpenAI fake's /v1/embeddings: a memory no word of the message finds is recalled by meaning into the context block;
// an endpoint that refuses the key leaves recall to the words, and the turn still gets its context.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';
import { useFakeEmbeddings } from '../memory/fake-embedder';

const KEY = 'sk-context-embeddings-key';
const db = useAssistantDatabase();
const embeddings = useFakeEmbeddings({ key: KEY, model: 'text-embedding-3-small', dimensions: 256 });

describe('loadContext with embeddings', () => {
  it("recalls a memory by meaning into the turn's context block, where words find nothing", async () => {
    const userId = await createUser(db.pool, 'context-embeddings');
    // Only stop words: no lexeme and no name to search by.
    const { memory } = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'To be or not to be' },
      embeddings.embedder,
    );
    const turn = (embedder?: assistant.Embedder) =>
      assistant.loadContext(db.pool, userId, {
        sessionId: 'chat',
        message: 'To be or not to be',
        now: new Date('2026-07-01T10:00:00Z'),
        embedder,
      });
    expect((await turn()).memories).toEqual([]);
    const context = await turn(embeddings.embedder);
    expect(context.memories.map((m) => m.id)).toEqual([memory.id]);
    expect(context.contextBlock).toContain(`- [${memory.id}] To be or not to be`);

    const refused = assistant.openAiEmbedder({
      baseUrl: `${embeddings.fake.url}/v1`,
      apiKey: 'sk-not-the-key',
      model: 'text-embedding-3-small',
      dimensions: 256,
    });
    const fallback = await turn(refused);
    expect(fallback.memories).toEqual([]);
    expect(fallback.contextBlock).toContain("The user's local time is");
  });
});
