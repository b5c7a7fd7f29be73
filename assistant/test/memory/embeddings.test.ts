// The embeddings endpoint client against the loopback OpenAI fake's /v1/embeddings (deterministic unit vectors:
// equal texts embed equally): unit vectors in input order, settings checked by name, a refused key and an absent
// server reported as EmbeddingError without the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { AssistantInputError } from '../../src';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';

const KEY = 'sk-embeddings-test-key';
let openai: OpenAiChatFake;
let embedder: assistant.Embedder;

beforeAll(async () => {
  openai = await startOpenAiChatFake({ apiKey: KEY });
  embedder = assistant.openAiEmbedder({
    baseUrl: `${openai.url}/v1`,
    apiKey: KEY,
    model: 'text-embedding-3-small',
    dimensions: 256,
  });
});
afterAll(async () => {
  await openai?.close();
});

describe('embeddings endpoint client', () => {
  it('returns unit vectors of the asked dimension, in input order', async () => {
    const [a, b, again] = await embedder.embed(['first text', 'second text', 'first text']);
    expect(a).toHaveLength(256);
    expect(Math.hypot(...a)).toBeCloseTo(1, 5);
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
  });

  it('names the bad setting', () => {
    const field = (settings: Partial<assistant.EmbeddingSettings>) => {
      try {
        assistant.openAiEmbedder({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: '', model: 'm', ...settings });
      } catch (error) {
        expect(error).toBeInstanceOf(AssistantInputError);
        return (error as AssistantInputError).field;
      }
      return 'accepted';
    };
    expect(field({ baseUrl: 'ftp://example.com' })).toBe('baseUrl');
    expect(field({ baseUrl: 'not a url' })).toBe('baseUrl');
    expect(field({ model: ' ' })).toBe('model');
    expect(field({ dimensions: -3 })).toBe('dimensions');
    expect(field({ dimensions: 1.5 })).toBe('dimensions');
    expect(field({})).toBe('accepted');
  });

  it('reports a refused key and an absent server as EmbeddingError, without the key', async () => {
    const refused = assistant.openAiEmbedder({ baseUrl: `${openai.url}/v1`, apiKey: 'sk-wrong-secret', model: 'm' });
    const error = await refused.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(assistant.EmbeddingError);
    expect((error as Error).message).toMatch(/401.*Incorrect API key/);
    expect((error as Error).message).not.toContain('sk-wrong-secret');
    const absent = assistant.openAiEmbedder({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: KEY,
      model: 'm',
      timeoutMs: 2000,
    });
    const unreachable = await absent.embed(['x']).catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(assistant.EmbeddingError);
    expect((unreachable as Error).message).toMatch(/unreachable/);
  });
});
