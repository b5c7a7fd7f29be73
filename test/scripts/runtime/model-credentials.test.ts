// Every model call of the product goes through the model gateway: the credentials n8n gets point at it, and every
// chat-model node uses such a credential. A credential or node pointed straight at a provider fails here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayClientEnv } from '../../../scripts/runtime/gateway';
import { CREDENTIAL_TEMPLATES_DIR, loadCredentialTemplates } from '../../../scripts/runtime/credentials';
import { WORKFLOWS_DIR } from '../../../scripts/runtime/n8n-import';

const gateway = { url: 'http://127.0.0.1:5681', key: 'gateway-key-0123456789abcdef' };
const provider = {
  ASSISTANT_LLM_BASE_URL: 'https://api.provider.example/v1',
  ASSISTANT_LLM_API_KEY: 'sk-provider-key',
  ASSISTANT_TRANSCRIPTION_BASE_URL: 'https://api.provider.example/v1',
  ASSISTANT_TRANSCRIPTION_API_KEY: 'sk-provider-key',
  ASSISTANT_EMBEDDINGS_BASE_URL: 'https://api.provider.example/v1',
  ASSISTANT_EMBEDDINGS_API_KEY: 'sk-provider-key',
  ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
};
const MODEL_CREDENTIAL_TYPES = ['openAiApi', 'assistantTranscriptionApi', 'assistantEmbeddingsApi'];

describe('the model credentials n8n gets', () => {
  const rendered = loadCredentialTemplates([CREDENTIAL_TEMPLATES_DIR], {
    ...provider,
    ...gatewayClientEnv(gateway, provider),
  });

  it("point at the gateway with the gateway's key, never at the provider or with its key", () => {
    const models = rendered.filter((credential) => MODEL_CREDENTIAL_TYPES.includes(credential.type));
    expect(models.map((c) => c.id).sort()).toEqual(['asstChatModel001', 'asstEmbeddings01', 'asstTranscribe01']);
    const chat = models.find((c) => c.id === 'asstChatModel001')!;
    expect(chat.data).toEqual({ url: `${gateway.url}/llm/v1`, apiKey: gateway.key });
    const voice = models.find((c) => c.id === 'asstTranscribe01')!;
    expect(voice.data).toMatchObject({ baseUrl: `${gateway.url}/transcription/v1`, apiKey: gateway.key });
    const embeddings = models.find((c) => c.id === 'asstEmbeddings01')!;
    expect(embeddings.data).toEqual({
      baseUrl: `${gateway.url}/embeddings/v1`,
      apiKey: gateway.key,
      model: 'text-embedding-3-small',
      dimensions: 0,
    });
    expect(JSON.stringify(rendered)).not.toContain('sk-provider-key');
    expect(JSON.stringify(rendered)).not.toContain('api.provider.example');
  });

  it('leave voice and embeddings off when their provider is not set', () => {
    const withoutVoice = { ASSISTANT_LLM_BASE_URL: provider.ASSISTANT_LLM_BASE_URL };
    const credentials = loadCredentialTemplates([CREDENTIAL_TEMPLATES_DIR], gatewayClientEnv(gateway, withoutVoice));
    expect(credentials.find((c) => c.id === 'asstTranscribe01')!.data).toMatchObject({ baseUrl: '' });
    expect(credentials.find((c) => c.id === 'asstEmbeddings01')!.data).toMatchObject({ baseUrl: '' });
  });
});

describe('the chat-model nodes of the workflows', () => {
  it('all use the Assistant Chat Model credential (the gateway), with the model their data names', () => {
    let count = 0;
    for (const file of readdirSync(WORKFLOWS_DIR).filter((f) => f.endsWith('.json'))) {
      const workflow = JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8')) as {
        nodes: Array<{ name: string; type: string; credentials?: Record<string, { id: string }> }>;
      };
      for (const node of workflow.nodes.filter((n) => /lmChat|embeddings/i.test(n.type))) {
        count++;
        expect([file, node.name, node.credentials]).toEqual([
          file,
          node.name,
          { openAiApi: expect.objectContaining({ id: 'asstChatModel001' }) },
        ]);
      }
    }
    expect(count).toBe(6);
  });
});
