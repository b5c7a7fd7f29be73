// The loopback OpenAI fake's /v1/embeddings (deterministic unit vectors: equal texts embed equally) and the product's
// embedder on it, started for a test file and closed after it.
import { afterAll, beforeAll } from 'vitest';
import * as assistant from '../../src';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';

export interface FakeEmbeddings {
  readonly fake: OpenAiChatFake;
  readonly embedder: assistant.Embedder;
}

export function useFakeEmbeddings(options: { key: string; model: string; dimensions: number }): FakeEmbeddings {
  let fake: OpenAiChatFake | undefined;
  let embedder: assistant.Embedder | undefined;
  beforeAll(async () => {
    fake = await startOpenAiChatFake({ apiKey: options.key });
    embedder = assistant.openAiEmbedder({
      baseUrl: `${fake.url}/v1`,
      apiKey: options.key,
      model: options.model,
      dimensions: options.dimensions,
    });
  });
  afterAll(async () => {
    await fake?.close();
  });
  return {
    get fake() {
      if (!fake) throw new Error('the embeddings fake starts in beforeAll');
      return fake;
    },
    get embedder() {
      if (!embedder) throw new Error('the embeddings fake starts in beforeAll');
      return embedder;
    },
  };
}
