// Derived Ollama models, against the fake Ollama (test/fakes/ollama.ts): the window chosen, the name, one create
// only, the window read back, Ollama told from other servers, and the errors naming the model.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../../../../test/fakes/ollama';
import {
  derivedModelName,
  ensureDerivedModel,
  isOllama,
  numCtxOfParameters,
  OllamaModelError,
  readOllamaWindow,
} from '../../../src/gateway/ollama/derived-model';
import { startOpenAiChatFake } from '../../../../test/fakes/openai-chat';

async function modelNames(fake: OllamaFake): Promise<string[]> {
  const tags = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Array<{ name: string }> };
  return tags.models.map((model) => model.name);
}

describe('derived Ollama models', () => {
  let fake: OllamaFake;

  beforeAll(async () => {
    fake = await startOllamaFake({
      models: [
        { name: 'qwen3:8b', family: 'qwen3', contextLength: 40960 },
        { name: 'llama3.2', family: 'llama', contextLength: 131072, parameters: { num_ctx: 8192, stop: '<|eot_id|>' } },
      ],
    });
  });
  beforeEach(() => new OllamaFakeControl(fake.url).reset());
  afterAll(() => fake.close());

  it('names a derived model name:tag-ctxN (tag latest when missing, an old -ctx part replaced)', () => {
    expect(derivedModelName('qwen3:8b', 16384)).toBe('qwen3:8b-ctx16384');
    expect(derivedModelName('llama3.2', 8192)).toBe('llama3.2:latest-ctx8192');
    expect(derivedModelName('qwen3:8b-ctx4096', 8192)).toBe('qwen3:8b-ctx8192');
    expect(derivedModelName('hf.co/org/repo:Q4_K_M', 2048)).toBe('hf.co/org/repo:Q4_K_M-ctx2048');
    expect(derivedModelName('localhost:5000/org/model', 2048)).toBe('localhost:5000/org/model:latest-ctx2048');
  });

  it('creates the derived model once with the wanted window, given with or without /v1', async () => {
    const first = await ensureDerivedModel(`${fake.url}/v1`, 'qwen3:8b', { numCtx: 16384, memoryCapTokens: 32768 });
    expect(first).toEqual({ name: 'qwen3:8b-ctx16384', numCtx: 16384, trainedMax: 40960, created: true });
    expect(await modelNames(fake)).toContain('qwen3:8b-ctx16384');
    expect(await readOllamaWindow(fake.url, 'qwen3:8b-ctx16384')).toBe(16384);

    const second = await ensureDerivedModel(fake.url, 'qwen3:8b', { numCtx: 16384, memoryCapTokens: 32768 });
    expect(second).toEqual({ ...first, created: false });
  });

  it('asks for no more than the trained maximum nor the memory cap', async () => {
    expect(await ensureDerivedModel(fake.url, 'qwen3:8b', { numCtx: 100_000 })).toMatchObject({
      name: 'qwen3:8b-ctx40960',
      numCtx: 40960,
      trainedMax: 40960,
    });
    expect(await ensureDerivedModel(fake.url, 'qwen3:8b', { numCtx: 100_000, memoryCapTokens: 12_000 })).toMatchObject({
      name: 'qwen3:8b-ctx12000',
      numCtx: 12000,
    });
  });

  it('re-creates a derived model whose num_ctx is not the wanted one', async () => {
    await fetch(`${fake.url}/api/create`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'qwen3:8b-ctx8192',
        from: 'qwen3:8b',
        parameters: { num_ctx: 4096 },
        stream: false,
      }),
    });
    const derived = await ensureDerivedModel(fake.url, 'qwen3:8b', { numCtx: 8192 });
    expect(derived.created).toBe(true);
    expect(await readOllamaWindow(fake.url, 'qwen3:8b-ctx8192')).toBe(8192);
  });

  it("reads a model's own num_ctx, or null when it sets none; keeps the base's other parameters", async () => {
    expect(await readOllamaWindow(fake.url, 'llama3.2')).toBe(8192);
    expect(await readOllamaWindow(fake.url, 'qwen3:8b')).toBeNull();
    const derived = await ensureDerivedModel(fake.url, 'llama3.2', { numCtx: 20000 });
    expect(derived.name).toBe('llama3.2:latest-ctx20000');
    const show = (await (
      await fetch(`${fake.url}/api/show`, { method: 'POST', body: JSON.stringify({ model: derived.name }) })
    ).json()) as { parameters: string };
    expect(numCtxOfParameters(show.parameters)).toBe(20000);
    expect(show.parameters).toContain('"<|eot_id|>"');
  });

  it('says to pull a model Ollama does not have, naming it and quoting Ollama', async () => {
    const failure = ensureDerivedModel(fake.url, 'mistral:7b', { numCtx: 8192 });
    await expect(failure).rejects.toThrow(OllamaModelError);
    await expect(failure).rejects.toThrow(
      `Ollama at ${fake.url} has no model "mistral:7b" (it said: model 'mistral:7b' not found). Pull it first: ollama pull mistral:7b`,
    );
    await expect(readOllamaWindow(fake.url, 'mistral:7b')).rejects.toMatchObject({ model: 'mistral:7b', status: 404 });
  });

  it('tells Ollama from another OpenAI-compatible server and from nothing listening', async () => {
    expect(await isOllama(`${fake.url}/v1`)).toBe(true);
    expect(await isOllama(`${fake.url}/`)).toBe(true);
    const other = await startOpenAiChatFake();
    try {
      expect(await isOllama(`${other.url}/v1`)).toBe(false);
    } finally {
      await other.close();
    }
    expect(await isOllama('http://127.0.0.1:9/v1')).toBe(false);
  });

  it('names the model when Ollama is not there at all', async () => {
    await expect(ensureDerivedModel('http://127.0.0.1:9', 'qwen3:8b', { numCtx: 8192 })).rejects.toThrow(
      /Ollama at http:\/\/127\.0\.0\.1:9 did not answer \/api\/show for "qwen3:8b"/,
    );
  });
});
