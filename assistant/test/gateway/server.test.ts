// The gateway in front of an OpenAI-compatible provider (the fake): what reaches the provider, what the caller gets,
// and the ledger row every call leaves.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';
import { withCaller } from '../../src/gateway/caller';
import { resolveIdentity } from '../../src/identities/identities';
import { useAssistantDatabase } from '../database';
import { GATEWAY_KEY, PROVIDER_KEY, startTestGateway, type TestGateway } from './harness';

const db = useAssistantDatabase();
let provider: OpenAiChatFake;
let control: OpenAiChatFakeControl;
let gateway: TestGateway;
let userId: string;

const chat = (message: string, extra: Record<string, unknown> = {}) => ({
  model: withCaller('gpt-4o-mini', { job: 'agent', user: userId, ref: 'turn-1' }),
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: message },
  ],
  ...extra,
});

beforeAll(async () => {
  provider = await startOpenAiChatFake({ apiKey: PROVIDER_KEY });
  control = new OpenAiChatFakeControl(provider.url);
  gateway = await startTestGateway(db.pool, {
    ASSISTANT_LLM_BASE_URL: `${provider.url}/v1`,
    ASSISTANT_LLM_API_KEY: PROVIDER_KEY,
    ASSISTANT_MODEL_WINDOWS: 'gpt-4.1-mini=1000',
  });
  userId = (await resolveIdentity(db.pool, 'telegram', '4242')).userId;
});

afterAll(async () => {
  await gateway?.close();
  await provider?.close();
});

afterEach(() => control.reset());

describe('a chat completion through the gateway', () => {
  it('reaches the provider with its key and the bare model id, and leaves a ledger row with its caller', async () => {
    const response = await gateway.post('llm/v1/chat/completions', chat('hello there'));
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(answer.choices[0].message.content).toBe('echo: hello there');

    const [seen] = await control.requests('hello there');
    expect(seen.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(seen.body.model).toBe('gpt-4o-mini');

    const [row] = await gateway.calls();
    expect(row).toMatchObject({
      upstream: 'llm',
      route: 'chat',
      job: 'agent',
      user_id: userId,
      ref: 'turn-1',
      model: 'gpt-4o-mini',
      status: 200,
      outcome: 'ok',
      measured_by: 'estimate',
      window_tokens: 128_000,
      error: null,
    });
    expect(row.prompt_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.measured_prompt_tokens).toBeGreaterThanOrEqual(row.prompt_tokens! / 2);
  });

  it('relays a stream event by event, drops the usage chunk only the gateway asked for, and records the usage', async () => {
    const response = await gateway.post('llm/v1/chat/completions', chat('stream me', { stream: true }));
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice(5)) as { choices: unknown[]; usage?: unknown });
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    expect((await control.requests('stream me'))[0].body.stream_options).toEqual({ include_usage: true });
    const [row] = (await gateway.calls()).filter((call) => call.route === 'chat').slice(-1);
    expect(row.outcome).toBe('ok');
    expect(row.prompt_tokens).toBeGreaterThan(0);
  });

  it('keeps the usage chunk for a caller that asked for it', async () => {
    const body = chat('usage please', { stream: true, stream_options: { include_usage: true } });
    const text = await (await gateway.post('llm/v1/chat/completions', body)).text();
    expect(text).toMatch(/"choices":\[\],"usage":\{"prompt_tokens":\d+/);
  });
});

describe('no cut prompt', () => {
  it('refuses a prompt that cannot fit the window, says what to change, and never sends it', async () => {
    const long = 'word '.repeat(3_000);
    const response = await gateway.post('llm/v1/chat/completions', { ...chat(long), model: 'gpt-4.1-mini#job=agent' });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toMatch(/window is 1000 tokens \(ASSISTANT_MODEL_WINDOWS\); it was not sent/);
    expect(error.message).toContain('Use a model with a larger window');
    expect(await control.requests('word word')).toEqual([]);
    const refused = (await gateway.calls()).filter((call) => call.outcome === 'refused');
    expect(refused.at(-1)).toMatchObject({ model: 'gpt-4.1-mini', window_tokens: 1000, status: 400 });
  });

  it('a provider that cut the prompt silently (it reports fewer prompt tokens than were sent): 502, recorded as cut', async () => {
    const small = await startOpenAiChatFake({ contextWindow: 300 });
    const cutting = await startTestGateway(db.pool, { ASSISTANT_LLM_BASE_URL: `${small.url}/v1` });
    try {
      const response = await cutting.post('llm/v1/chat/completions', chat('story '.repeat(2_000)));
      expect(response.status).toBe(502);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('prompt_cut');
      expect(error.message).toMatch(/the provider read 300 prompt tokens of about \d+ sent to gpt-4o-mini/);
      const [row] = await cutting.calls();
      expect(row).toMatchObject({ outcome: 'cut', prompt_tokens: 300, status: 502 });
      // A prompt that fits is not taken for a cut one.
      expect((await cutting.post('llm/v1/chat/completions', chat('short'))).status).toBe(200);
    } finally {
      await cutting.close();
      await small.close();
    }
  });
});

describe('the provider failing', () => {
  for (const [status, message] of [
    [429, 'Rate limit reached for gpt-4o-mini'],
    [500, 'The server had an error while processing your request'],
    [401, `Incorrect API key provided: ${PROVIDER_KEY}`],
  ] as const) {
    it(`${status}: relayed to the caller as the provider said it, and recorded with its status and message`, async () => {
      await control.addScript(`fail ${status}`, [{ fail: { status, message } }]);
      const response = await gateway.post('llm/v1/chat/completions', chat(`please fail ${status}`));
      expect(response.status).toBe(status);
      const row = (await gateway.calls()).filter((call) => call.status === status).at(-1)!;
      expect(row.outcome).toBe('failed');
      expect(row.error).toContain(`${status}: `);
      expect(row.error).toContain(message.split(':')[0]);
      expect(row.error).not.toContain(PROVIDER_KEY);
    });
  }

  it('failure awareness: a streak of 500s is one row with its count, a refused key another, in plain words', async () => {
    await db.pool.query("DELETE FROM assistant.failures WHERE source = 'provider'");
    await control.addScript('outage please', [{ fail: { status: 500, message: 'The server had an error' } }]);
    await control.addScript('key please', [{ fail: { status: 401, message: `Incorrect API key: ${PROVIDER_KEY}` } }]);
    for (const message of ['outage please', 'outage please', 'key please'])
      await gateway.post('llm/v1/chat/completions', chat(message));
    await gateway.flushed();
    const rows = await db.pool.query(
      "SELECT user_id, count, message FROM assistant.failures WHERE source = 'provider' ORDER BY id",
    );
    expect(rows.rows.map((r) => [r.user_id, r.count])).toEqual([
      [userId, 2],
      [userId, 1],
    ]);
    const host = new URL(provider.url).host;
    expect(rows.rows[0].message).toMatch(
      new RegExp(
        `^the chat model provider \\(${host}, model gpt-4o-mini\\) failed \\(HTTP 500\\), an outage there\\?: `,
      ),
    );
    expect(rows.rows[1].message).toContain(
      `the chat model provider (${host}, model gpt-4o-mini) refused its API key (HTTP 401)`,
    );
    expect(rows.rows[1].message).toContain('Check ASSISTANT_LLM_API_KEY.');
    expect(rows.rows[1].message).not.toContain(PROVIDER_KEY);
  });

  it('a provider that never answers: the caller giving up is recorded as a timeout', async () => {
    await control.addScript('hang please', [{ hang: true }]);
    await expect(
      fetch(`${gateway.url}/llm/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
        body: JSON.stringify(chat('hang please')),
        signal: AbortSignal.timeout(500),
      }),
    ).rejects.toThrow();
    await expect.poll(async () => (await gateway.calls()).filter((c) => c.outcome === 'timeout').length).toBe(1);
    const row = (await gateway.calls()).find((c) => c.outcome === 'timeout')!;
    expect(row.error).toContain('the caller stopped waiting');
  });

  it('a provider that is down: 502 naming it', async () => {
    const down = await startTestGateway(db.pool, { ASSISTANT_LLM_BASE_URL: 'http://127.0.0.1:9/v1' });
    try {
      const response = await down.post('llm/v1/chat/completions', chat('anyone?'));
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        'the model provider at http://127.0.0.1:9/v1 did not answer',
      );
    } finally {
      await down.close();
    }
  });
});

describe('its own door', () => {
  it('refuses a wrong key, an unknown upstream and an unconfigured one, each named', async () => {
    expect((await gateway.post('llm/v1/chat/completions', chat('x'), 'wrong-key')).status).toBe(401);
    const unknown = await gateway.post('gpt/v1/chat/completions', chat('x'));
    expect(unknown.status).toBe(404);
    const embeddings = await gateway.post('embeddings/v1/embeddings', { model: 'm', input: 'x' });
    expect(embeddings.status).toBe(503);
    expect(await embeddings.text()).toContain('the embeddings upstream has no provider configured');
  });

  it('names a bad caller suffix', async () => {
    const response = await gateway.post('llm/v1/chat/completions', { ...chat('x'), model: 'gpt-4o-mini#job=' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('the caller suffix needs a job');
  });

  it('passes embeddings through with the bare model id, counted', async () => {
    const response = await gateway.post('llm/v1/embeddings', {
      model: 'text-embedding-3-small#job=embeddings',
      input: 'a sentence long enough to count',
    });
    expect(response.status).toBe(200);
    const row = (await gateway.calls()).filter((c) => c.route === 'embeddings').at(-1)!;
    expect(row).toMatchObject({ job: 'embeddings', model: 'text-embedding-3-small', outcome: 'ok' });
    expect(row.prompt_tokens).toBeGreaterThan(0);
  });
});
