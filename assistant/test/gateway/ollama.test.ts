// The gateway in front of Ollama (the fake): the derived model with the gateway's window, created once and never
// reloaded; native /api/chat with keep_alive and truncate off; one slot with a person's turn first; nothing cut.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../../../test/fakes/ollama';
import { withCaller } from '../../src/gateway/caller';
import { useAssistantDatabase } from '../database';
import { startTestGateway, type TestGateway } from './harness';

const db = useAssistantDatabase();
let ollama: OllamaFake;
let control: OllamaFakeControl;
let gateway: TestGateway;

const MODEL = 'qwen2.5:7b-instruct';
const chat = (message: string, job = 'agent', extra: Record<string, unknown> = {}) => ({
  model: withCaller(MODEL, { job }),
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: message },
  ],
  tools: [
    { type: 'function', function: { name: 'remember', description: 'Store a fact', parameters: { type: 'object' } } },
  ],
  ...extra,
});

beforeAll(async () => {
  ollama = await startOllamaFake({
    models: [{ name: MODEL, family: 'qwen2', contextLength: 32_768, parameterSize: '7.6B' }],
  });
  control = new OllamaFakeControl(ollama.url);
  gateway = await startTestGateway(db.pool, {
    ASSISTANT_LLM_BASE_URL: `${ollama.url}/v1`,
    ASSISTANT_PROMPT_BUDGET_TOKENS: '6144',
    ASSISTANT_MAX_OUTPUT_TOKENS: '2048',
  });
});

afterAll(async () => {
  await gateway?.close();
  await ollama?.close();
});

beforeEach(async () => {
  await control.reset();
});

describe('a chat through the gateway to Ollama', () => {
  it('uses a derived model with the window the agent needs, created once and never reloaded', async () => {
    for (const message of ['first message', 'second message']) {
      const response = await gateway.post('llm/v1/chat/completions', chat(message));
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { model: string; choices: Array<{ message: { content: string } }> };
      expect(answer.choices[0].message.content).toBe(`echo: ${message}`);
      expect(answer.model).toBe(MODEL);
    }
    const seen = await control.requests();
    expect(seen.map((r) => [r.route, r.model, r.numCtx, r.cut])).toEqual([
      ['/api/chat', 'qwen2.5:7b-instruct-ctx8192', 8192, null],
      ['/api/chat', 'qwen2.5:7b-instruct-ctx8192', 8192, null],
    ]);
    expect(seen[0].body).toMatchObject({ keep_alive: '30m', truncate: false });
    const stats = await control.stats();
    expect(stats.reloads).toBe(1); // the first load only
    expect(stats.cuts).toBe(0);
    const rows = (await gateway.calls()).slice(-2);
    expect(rows.map((r) => [r.model, r.window_tokens, r.outcome])).toEqual([
      [MODEL, 8192, 'ok'],
      [MODEL, 8192, 'ok'],
    ]);
    expect(rows[1].prompt_tokens).toBeGreaterThan(0);
  });

  it('creates the derived model again when Ollama lost it (the fake was reset: deleted, or a new install)', async () => {
    expect((await gateway.post('llm/v1/chat/completions', chat('after a reinstall'))).status).toBe(200);
    expect((await control.requests()).map((r) => r.model)).toEqual(['qwen2.5:7b-instruct-ctx8192']);
  });

  it('streams in the OpenAI format', async () => {
    const response = await gateway.post('llm/v1/chat/completions', chat('stream this', 'agent', { stream: true }));
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(5)) as { choices: Array<{ delta: { content?: string } }> })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('echo: stream this');
  });

  it('refuses a prompt over the derived window before Ollama sees it, saying what to change', async () => {
    const response = await gateway.post('llm/v1/chat/completions', chat('long '.repeat(20_000)));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toContain("window is 8192 tokens (the gateway's Ollama window)");
    expect(error.message).toContain('ASSISTANT_OLLAMA_MAX_CONTEXT');
    expect(await control.requests()).toEqual([]);
  });

  it('with one slot, a waiting person goes before waiting background work', async () => {
    await control.addScript('busy', [{ content: 'done', delay_ms: 400 }]);
    const first = gateway.post('llm/v1/chat/completions', chat('busy first', 'heartbeat'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const background = gateway.post('llm/v1/chat/completions', chat('background judge', 'judge'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const person = gateway.post('llm/v1/chat/completions', chat('a person asks', 'agent'));
    await Promise.all([first, background, person]);
    const order = (await control.requests()).map((r) => r.seenMessages.at(-1)?.content);
    expect(order).toEqual(['busy first', 'a person asks', 'background judge']);
    expect((await control.stats()).maxConcurrent).toBe(1);
  });
});
