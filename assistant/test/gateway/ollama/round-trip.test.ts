// The translation against the fake Ollama (test/fakes/ollama.ts): an OpenAI request sent to /api/chat on a derived
// model, answered as OpenAI again, streamed and not, with a tool round.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaFakeControl, promptTokens, startOllamaFake, type OllamaFake } from '../../../../test/fakes/ollama';
import { ensureDerivedModel } from '../../../src/gateway/ollama/derived-model';
import {
  fromOllamaChat,
  ollamaChunksToOpenAi,
  readNdjson,
  toOllamaChat,
  type OllamaChatChunk,
  type OllamaChatResponse,
} from '../../../src/gateway/ollama/translate';
import type { ChatCompletionChunk, ChatRequest } from '../../../src/gateway/openai-types';

const remember = {
  type: 'function' as const,
  function: { name: 'remember', parameters: { type: 'object', properties: { fact: { type: 'string' } } } },
};

describe('OpenAI requests through /api/chat of the fake Ollama', () => {
  let fake: OllamaFake;
  let control: OllamaFakeControl;
  let model: string;

  beforeAll(async () => {
    fake = await startOllamaFake();
    control = new OllamaFakeControl(fake.url);
    model = (await ensureDerivedModel(fake.url, 'qwen3:8b', { numCtx: 16384 })).name;
  });
  afterAll(() => fake.close());

  async function send(request: ChatRequest): Promise<Response> {
    const response = await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(toOllamaChat(request, model, '10m')),
    });
    expect(response.status).toBe(200);
    return response;
  }

  it('plays a tool call and the answer after it, with the usage Ollama counted', async () => {
    await control.addScript('[round-1]', [
      { tool_calls: [{ name: 'remember', arguments: { fact: 'likes tea' } }] },
      { content: 'Noted: {{last_tool_result}}' },
    ]);
    const request: ChatRequest = {
      model: 'assistant',
      messages: [{ role: 'user', content: 'I like tea [round-1]' }],
      tools: [remember],
    };
    const first = fromOllamaChat((await (await send(request)).json()) as OllamaChatResponse, 'assistant');
    const call = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ fact: 'likes tea' });

    request.messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'saved #7' });
    const second = fromOllamaChat((await (await send(request)).json()) as OllamaChatResponse, 'assistant');
    expect(second.choices[0]).toMatchObject({ message: { content: 'Noted: saved #7' }, finish_reason: 'stop' });

    const recorded = await control.requests('[round-1]');
    expect(recorded.map((entry) => [entry.model, entry.numCtx, entry.step, entry.cut])).toEqual([
      [model, 16384, 0, null],
      [model, 16384, 1, null],
    ]);
    expect(recorded[1].seenMessages[2]).toMatchObject({ role: 'tool', tool_name: 'remember', content: 'saved #7' });
    expect(second.usage.prompt_tokens).toBe(promptTokens(recorded[1].seenMessages, [remember]));
    expect(recorded[1].body).toMatchObject({ keep_alive: '10m', stream: false });
  });

  it('streams through readNdjson and the converter as OpenAI chunks', async () => {
    await control.addScript('[round-2]', [{ content: 'x'.repeat(100) }]);
    const response = await send({
      model: 'assistant',
      messages: [{ role: 'user', content: 'say x [round-2]' }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    const lines = readNdjson(response.body!) as AsyncIterable<OllamaChatChunk>;
    for await (const chunk of ollamaChunksToOpenAi(lines, 'assistant', true)) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('x'.repeat(100));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1].usage?.prompt_tokens).toBeGreaterThan(0);
  });
});
