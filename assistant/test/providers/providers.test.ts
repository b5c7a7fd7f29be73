// The provider list: each provider tried against a loopback fake that serves its OpenAI-compatible API at the
// provider's own path, with the client n8n's Chat Model node uses (@langchain/openai) and the installer's key check;
// and the docs' table rendered from the list.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_PROVIDERS, checkProviderKey, providerById, providersTable } from '../../src/providers';
import { startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';

const KEY = 'sk-provider-test-key';

describe('AI providers', () => {
  it('lists a default, five hosted providers and a local runner', () => {
    expect(AI_PROVIDERS.map((p) => p.kind)).toEqual([
      'default',
      'hosted',
      'hosted',
      'hosted',
      'hosted',
      'hosted',
      'local',
    ]);
    expect(new Set(AI_PROVIDERS.map((p) => p.id)).size).toBe(AI_PROVIDERS.length);
    expect(providerById(' Gemini ')?.name).toBe('Google Gemini');
    expect(providerById('watson')).toBeUndefined();
  });

  it("docs/ASSISTANT.md's table is the list's", () => {
    const docs = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'ASSISTANT.md'), 'utf8');
    expect(docs).toContain(providersTable());
  });
});

describe.each(AI_PROVIDERS.map((provider) => [provider.name, provider] as const))(
  '%s against its fake',
  (_name, provider) => {
    let fake: OpenAiChatFake;
    let baseUrl: string;

    beforeAll(async () => {
      const listed = new URL(provider.baseUrl);
      fake = await startOpenAiChatFake({ apiKey: KEY, models: [provider.exampleModel], pathPrefix: listed.pathname });
      // The provider's own path (and trailing slash, or none) on the fake's loopback origin.
      baseUrl = `${fake.url}${listed.pathname}`;
    });
    afterAll(() => fake.close());

    it('answers a chat through the Chat Model node’s client at the listed path', async () => {
      const model = new ChatOpenAI({
        model: provider.exampleModel,
        apiKey: KEY,
        configuration: { baseURL: baseUrl },
        maxRetries: 0,
      });
      const answer = await model.invoke('ping from the provider test');
      expect(answer.content).toContain('ping from the provider test');
    });

    it('checks the key with one call to the model list (a local runner is not checked)', async () => {
      const good = await checkProviderKey(provider, KEY, { baseUrl });
      const bad = await checkProviderKey(provider, 'sk-wrong', { baseUrl });
      if (provider.kind === 'local') {
        expect(good).toEqual({ ok: true, skipped: true, models: 0 });
        expect(bad).toMatchObject({ ok: true, skipped: true });
        return;
      }
      expect(good).toEqual({ ok: true, skipped: false, models: 1 });
      expect(bad).toMatchObject({ ok: false, reason: 'refused' });
      expect(bad.ok === false && bad.message).toMatch(new RegExp(`^${provider.name} refused the key \\(HTTP 401\\)`));
      expect(JSON.stringify(bad)).not.toContain('sk-wrong');
      expect(await checkProviderKey(provider, ' ', { baseUrl })).toMatchObject({ ok: false, reason: 'refused' });
    });
  },
);

describe('the key check when the provider is not there', () => {
  it('says it could not be reached, naming the address', async () => {
    const closed = await startOpenAiChatFake();
    const url = closed.url;
    await closed.close();
    const result = await checkProviderKey(providerById('mistral')!, KEY, { baseUrl: `${url}/v1`, timeoutMs: 3_000 });
    expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(result.ok === false && result.message).toContain(new URL(url).origin);
  });
});
