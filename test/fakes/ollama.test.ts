// The fake Ollama: the silent cut of an over-long prompt (whole messages from the front, then the middle), no cut on
// a derived model with a big enough num_ctx, create/show, reloads, one slot, and the prompt cache.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  OllamaFakeControl,
  promptTokens,
  renderPrompt,
  startOllamaFake,
  countTokens,
  type FakeMessage,
  type OllamaFake,
} from './ollama';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the weather in a given city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function chat(fake: OllamaFake, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await post(`${fake.url}/api/chat`, { stream: false, ...body });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function ndjson(response: Response): Promise<Array<Record<string, unknown>>> {
  return (await response.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A conversation of about 4,560 tokens: over the default window of 4096. */
function longConversation(tag: string): FakeMessage[] {
  return [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: `first question ${'a'.repeat(6000)}` },
    { role: 'assistant', content: `first answer ${'b'.repeat(6000)}` },
    { role: 'user', content: `second question ${'c'.repeat(6000)}` },
    { role: 'assistant', content: 'second answer' },
    { role: 'user', content: `latest question ${tag}` },
  ];
}

describe('fake Ollama', () => {
  let fake: OllamaFake;
  let control: OllamaFakeControl;

  beforeAll(async () => {
    fake = await startOllamaFake();
    control = new OllamaFakeControl(fake.url);
  });
  beforeEach(() => control.reset());
  afterAll(() => fake.close());

  it('cuts a prompt over the window silently on /v1: drops the oldest messages, keeps the system and the latest', async () => {
    const messages = longConversation('[cut-1]');
    expect(promptTokens(messages)).toBeGreaterThan(4096);
    const response = await post(`${fake.url}/v1/chat/completions`, { model: 'qwen3:8b', messages });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
      usage: { prompt_tokens: number };
    };
    const kept = [messages[0], ...messages.slice(2)];
    expect(completion.usage.prompt_tokens).toBe(promptTokens(kept));
    expect(completion.choices[0]).toMatchObject({ message: { content: 'echo: latest question [cut-1]' } });
    expect(completion.choices[0].finish_reason).toBe('stop');

    const [recorded] = await control.requests('[cut-1]');
    expect(recorded.numCtx).toBe(4096);
    expect(recorded.seenMessages).toEqual(kept);
    expect(recorded.cut).toEqual({
      droppedMessages: 1,
      droppedTokens: promptTokens(messages) - promptTokens(kept),
      midPromptCut: false,
    });
    expect((await control.stats()).cuts).toBe(1);
  });

  it('cuts one message longer than the window in the middle: the first num_keep tokens and the tail', async () => {
    const fakeSmall = await startOllamaFake({ defaultNumCtx: 100 });
    try {
      const messages = [{ role: 'user', content: `[cut-2] ${'x'.repeat(1000)} the end` }];
      const response = await post(`${fakeSmall.url}/v1/chat/completions`, { model: 'qwen3:8b', messages });
      const completion = (await response.json()) as { usage: { prompt_tokens: number } };
      expect(completion.usage.prompt_tokens).toBe(100 - Math.floor((100 - 4) / 2));
      const [recorded] = await new OllamaFakeControl(fakeSmall.url).requests();
      const full = renderPrompt(messages);
      expect(recorded.cut?.midPromptCut).toBe(true);
      expect(recorded.seenPrompt.startsWith(full.slice(0, 16))).toBe(true);
      expect(full.endsWith(recorded.seenPrompt.slice(16))).toBe(true);
    } finally {
      await fakeSmall.close();
    }
  });

  it('refuses instead of cutting when /api/chat asks for truncate: false', async () => {
    const response = await post(`${fake.url}/api/chat`, {
      model: 'qwen3:8b',
      messages: longConversation('[cut-3]'),
      truncate: false,
      stream: false,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'the input length exceeds the context length' });
  });

  it('creates a derived model with num_ctx, shows it, and does not cut there (on /api/chat nor /v1)', async () => {
    const base = (await (await post(`${fake.url}/api/show`, { model: 'qwen3:8b' })).json()) as Record<string, unknown>;
    expect(base.model_info).toMatchObject({ 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 });
    expect(base.capabilities).toContain('tools');
    expect(base.parameters).toBe('');

    const created = await post(`${fake.url}/api/create`, {
      model: 'qwen3:8b-ctx16384',
      from: 'qwen3:8b',
      parameters: { num_ctx: 16384 },
    });
    const lines = await ndjson(created);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[lines.length - 1]).toEqual({ status: 'success' });

    const shown = (await (await post(`${fake.url}/api/show`, { model: 'qwen3:8b-ctx16384' })).json()) as {
      parameters: string;
      modelfile: string;
      details: { parent_model: string };
    };
    expect(shown.parameters).toBe(`num_ctx${' '.repeat(24)}16384`);
    expect(shown.modelfile).toContain('PARAMETER num_ctx 16384');
    expect(shown.details.parent_model).toBe('qwen3:8b');
    const tags = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Array<{ name: string }> };
    expect(tags.models.map((model) => model.name)).toContain('qwen3:8b-ctx16384');

    const messages = longConversation('[nocut-1]');
    const native = await chat(fake, { model: 'qwen3:8b-ctx16384', messages });
    expect(native.prompt_eval_count).toBe(promptTokens(messages));
    const viaV1 = await post(`${fake.url}/v1/chat/completions`, { model: 'qwen3:8b-ctx16384', messages });
    expect(((await viaV1.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(
      promptTokens(messages),
    );
    const recorded = await control.requests('[nocut-1]');
    expect(recorded.map((entry) => [entry.numCtx, entry.cut])).toEqual([
      [16384, null],
      [16384, null],
    ]);
  });

  it('answers create from an unknown model as Ollama does after a failed pull', async () => {
    const single = await post(`${fake.url}/api/create`, { model: 'x-ctx1', from: 'nosuch:1b', stream: false });
    expect(single.status).toBe(500);
    expect(await single.json()).toEqual({ error: 'pull model manifest: file does not exist' });
    const streamed = await post(`${fake.url}/api/create`, { model: 'x-ctx1', from: 'nosuch:1b' });
    expect(await ndjson(streamed)).toEqual([
      { status: 'pulling manifest' },
      { error: 'pull model manifest: file does not exist' },
    ]);
    const show = await post(`${fake.url}/api/show`, { model: 'nosuch:1b' });
    expect(show.status).toBe(404);
    expect(await show.json()).toEqual({ error: "model 'nosuch:1b' not found" });
  });

  it('streams NDJSON with tool calls whose arguments are objects, then the final metrics', async () => {
    await control.addScript('[tools-1]', [{ tool_calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }] }]);
    const messages = [{ role: 'user', content: 'weather in tokyo? [tools-1]' }];
    const response = await post(`${fake.url}/api/chat`, { model: 'llama3.2:3b', messages, tools: [weatherTool] });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = await ndjson(response);
    const withCalls = lines.find((line) => (line.message as { tool_calls?: unknown }).tool_calls);
    expect(withCalls?.message).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } } }],
    });
    const final = lines[lines.length - 1];
    expect(final).toMatchObject({
      done: true,
      done_reason: 'stop',
      prompt_eval_count: promptTokens(messages, [weatherTool]),
    });
    for (const key of ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_count', 'eval_duration'])
      expect(final[key]).toBeGreaterThan(0);
  });

  it('speaks OpenAI on /v1 to the openai client: models, tool calls streamed, finish_reason and usage', async () => {
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'ollama', maxRetries: 0 });
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['qwen3:8b', 'llama3.2:3b']);
    await control.addScript('[v1-1]', [{ tool_calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }] }]);
    const messages = [{ role: 'user' as const, content: 'weather? [v1-1]' }];
    const stream = await client.chat.completions.create({
      model: 'qwen3:8b',
      messages,
      tools: [weatherTool as OpenAI.Chat.Completions.ChatCompletionTool],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const call = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])[0];
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Tokyo"}' });
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    expect(chunks[chunks.length - 1].usage?.prompt_tokens).toBe(promptTokens(messages, [weatherTool]));
    const missing = client.chat.completions.create({ model: 'nosuch', messages });
    await expect(missing).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining("model 'nosuch' not found"),
    });
  });

  it('stops at num_predict with done_reason length', async () => {
    await control.addScript('[len-1]', [{ content: 'y'.repeat(400) }]);
    const reply = await chat(fake, {
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: '[len-1]' }],
      options: { num_predict: 10 },
    });
    expect(reply.done_reason).toBe('length');
    expect((reply.message as { content: string }).content).toBe('y'.repeat(40));
  });

  it('counts reloads: another model, another num_ctx, and after keep_alive 0; a derived model shares the weights', async () => {
    const ask = (model: string, extra: Record<string, unknown> = {}) =>
      chat(fake, { model, messages: [{ role: 'user', content: 'hi [reload]' }], ...extra });
    await ask('qwen3:8b');
    await ask('qwen3:8b');
    expect((await control.stats()).reloads).toBe(1);
    await ask('qwen3:8b', { options: { num_ctx: 8192 } });
    expect(await control.stats()).toMatchObject({ reloads: 2, loaded: { model: 'qwen3:8b', numCtx: 8192 } });
    await post(`${fake.url}/api/create`, {
      model: 'qwen3:8b-ctx8192',
      from: 'qwen3:8b',
      parameters: { num_ctx: 8192 },
    });
    await ask('qwen3:8b-ctx8192');
    expect((await control.stats()).reloads).toBe(2);
    await ask('llama3.2:3b');
    expect((await control.stats()).reloads).toBe(3);
    await ask('llama3.2:3b', { keep_alive: 0 });
    expect(await control.stats()).toMatchObject({ reloads: 3, loaded: null });
    await ask('llama3.2:3b');
    expect((await control.stats()).reloads).toBe(4);
    expect((await control.requests('[reload]')).map((entry) => entry.reloaded)).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it('unloads a model whose keep_alive ran out: the next request reloads it', async () => {
    const ask = (keepAlive: string) =>
      chat(fake, { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }], keep_alive: keepAlive });
    await ask('200ms');
    await ask('200ms');
    expect((await control.stats()).reloads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await ask('5m');
    expect((await control.stats()).reloads).toBe(2);
    const bad = await post(`${fake.url}/api/chat`, { model: 'qwen3:8b', messages: [], keep_alive: '300' });
    expect(bad.status).toBe(400);
  });

  it('loads with empty messages and unloads with keep_alive 0', async () => {
    expect(await chat(fake, { model: 'qwen3:8b', messages: [] })).toMatchObject({ done: true, done_reason: 'load' });
    expect((await control.stats()).loaded).toEqual({ model: 'qwen3:8b', numCtx: 4096 });
    const unload = await chat(fake, { model: 'qwen3:8b', messages: [], keep_alive: 0 });
    expect(unload.done_reason).toBe('unload');
    expect((await control.stats()).loaded).toBeNull();
  });
});

describe('fake Ollama timing', () => {
  it('serves one request at a time, in arrival order', async () => {
    const fake = await startOllamaFake({ outputTokensPerSecond: 100 });
    const control = new OllamaFakeControl(fake.url);
    try {
      await control.addScript('[slot]', [{ content: 'z'.repeat(80) }]); // ~20 tokens: ~0.2 s each
      const finished: number[] = [];
      const started = Date.now();
      const requests = [0, 1, 2].map(async (index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 30));
        await chat(fake, { model: 'qwen3:8b', messages: [{ role: 'user', content: `[slot] ${index}` }] });
        finished.push(index);
      });
      await Promise.all(requests);
      expect(finished).toEqual([0, 1, 2]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 190);
      expect(await control.stats()).toMatchObject({ maxConcurrent: 1, maxInFlight: 3, requests: 3 });
    } finally {
      await fake.close();
    }
  });

  it('evaluates only the new part of a prompt that starts like the cached one (prompt_eval_count still counts all)', async () => {
    const fake = await startOllamaFake({ promptTokensPerSecond: 2000 });
    const control = new OllamaFakeControl(fake.url);
    try {
      const system = { role: 'system', content: `rules ${'r'.repeat(4000)}` }; // ~1000 tokens: 0.5 s
      const first = [system, { role: 'user', content: 'first [cache]' }];
      let started = Date.now();
      const one = await chat(fake, { model: 'qwen3:8b', messages: first });
      const firstMs = Date.now() - started;

      const second = [...first, one.message as FakeMessage, { role: 'user', content: 'second [cache]' }];
      started = Date.now();
      const two = await chat(fake, { model: 'qwen3:8b', messages: second });
      const secondMs = Date.now() - started;

      expect(firstMs).toBeGreaterThanOrEqual(450);
      expect(secondMs).toBeLessThan(firstMs / 3);
      expect(two.prompt_eval_count).toBe(promptTokens(second));
      expect(two.prompt_eval_duration as number).toBeLessThan((one.prompt_eval_duration as number) / 10);
      const [, cached] = await control.requests('[cache]');
      expect(cached.cachedTokens).toBeGreaterThan(countTokens(system.content));
      expect(cached.cachedTokens + cached.evaluatedTokens).toBe(promptTokens(second));

      await chat(fake, { model: 'qwen3:8b', messages: second, options: { num_ctx: 8192 } }); // a reload
      const [, , afterReload] = await control.requests('[cache]');
      expect(afterReload.cachedTokens).toBe(0);
    } finally {
      await fake.close();
    }
  });
});

describe('fake Ollama /v1/completions and logprobs', () => {
  let fake: OllamaFake;
  let control: OllamaFakeControl;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startOllamaFake();
    control = new OllamaFakeControl(fake.url);
    client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'ollama', maxRetries: 0 });
  });
  beforeEach(() => control.reset());
  afterAll(() => fake.close());

  const asUser = (prompt: string): FakeMessage[] => [{ role: 'user', content: prompt }];

  it('completes a prompt as one user message through the template; usage counts it; no logprobs come back', async () => {
    const prompt = 'Say something [cmpl-1]';
    const completion = await client.completions.create({ model: 'qwen3:8b', prompt, logprobs: 5, temperature: 0 });
    expect(completion).toMatchObject({
      object: 'text_completion',
      model: 'qwen3:8b',
      system_fingerprint: 'fp_ollama',
      choices: [{ text: `echo: ${prompt}`, index: 0, finish_reason: 'stop' }],
    });
    expect(completion.id).toMatch(/^cmpl-\d+$/);
    expect(completion.choices[0]).not.toHaveProperty('logprobs');
    expect(completion.usage?.prompt_tokens).toBe(promptTokens(asUser(prompt)));
    const [recorded] = await control.requests('[cmpl-1]');
    expect(recorded).toMatchObject({ route: '/v1/completions', numCtx: 4096, cut: null });
    expect(recorded.seenPrompt).toBe(renderPrompt(asUser(prompt)));
  });

  it('stops at a stop sequence and at max_tokens; refuses logprobs over 20 and a prompt list as Ollama does', async () => {
    await control.addScript('[cmpl-stop]', [{ content: 'alpha STOP beta' }]);
    const stopped = await client.completions.create({ model: 'qwen3:8b', prompt: '[cmpl-stop]', stop: ['STOP'] });
    expect(stopped.choices[0]).toMatchObject({ text: 'alpha ', finish_reason: 'stop' });
    const short = await client.completions.create({ model: 'qwen3:8b', prompt: 'long [cmpl-len]', max_tokens: 2 });
    expect(short.choices[0]).toMatchObject({ text: 'echo: lo', finish_reason: 'length' });
    await expect(client.completions.create({ model: 'qwen3:8b', prompt: 'x', logprobs: 21 })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('top_logprobs must be between 0 and 20'),
    });
    await expect(client.completions.create({ model: 'qwen3:8b', prompt: ['a', 'b'] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('cannot unmarshal array'),
    });
    await expect(client.completions.create({ model: 'nosuch', prompt: 'x' })).rejects.toMatchObject({ status: 404 });
  });

  it('streams text_completion chunks, the finish, then the usage without choices', async () => {
    const prompt = `stream me ${'s'.repeat(100)} [cmpl-stream]`;
    const stream = await client.completions.create({
      model: 'qwen3:8b',
      prompt,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join('')).toBe(`echo: ${prompt}`);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage?.prompt_tokens).toBe(promptTokens(asUser(prompt)));
    expect(chunks[0].usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it('cuts a prompt over the window silently (/v1 cannot change it) and reports what was kept', async () => {
    const prompt = `begin ${'p'.repeat(20_000)} [cmpl-cut]`;
    expect(promptTokens(asUser(prompt))).toBeGreaterThan(4096);
    const completion = await client.completions.create({ model: 'qwen3:8b', prompt });
    const [recorded] = await control.requests();
    expect(recorded).toMatchObject({ route: '/v1/completions', numCtx: 4096, cut: { midPromptCut: true } });
    expect(completion.usage?.prompt_tokens).toBe(recorded.promptEvalCount);
    expect(completion.usage!.prompt_tokens).toBeLessThan(4096);
    expect((await control.stats()).cuts).toBe(1);
  });

  it('shares the one slot, the loaded model and its prompt cache with the chat routes', async () => {
    const prompt = `shared ${'q'.repeat(2000)} [cmpl-cache]`;
    await client.completions.create({ model: 'qwen3:8b', prompt });
    await client.completions.create({ model: 'qwen3:8b', prompt });
    await post(`${fake.url}/v1/chat/completions`, { model: 'qwen3:8b', messages: asUser(prompt) });
    const seen = await control.requests('[cmpl-cache]');
    expect(seen.map((r) => r.route)).toEqual(['/v1/completions', '/v1/completions', '/v1/chat/completions']);
    expect(seen[0].cachedTokens).toBe(0);
    expect(seen[1].cachedTokens).toBeGreaterThan(countTokens(prompt) - 2);
    expect(seen[2].cachedTokens).toBeGreaterThan(countTokens(prompt) - 2);
    expect(await control.stats()).toMatchObject({ reloads: 1, requests: 3, maxConcurrent: 1 });
    await client.completions.create({ model: 'llama3.2:3b', prompt });
    expect((await control.stats()).reloads).toBe(2);
  });

  it('gives scripted top logprobs on /v1/chat/completions: the likeliest is the answer, exactly top_logprobs of them', async () => {
    await control.addScript('[lp-1]', [
      {
        top_logprobs: [
          { token: 'B', logprob: Math.log(0.3) },
          { token: 'A', logprob: Math.log(0.6) },
        ],
      },
    ]);
    const completion = await client.chat.completions.create({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'Pick one [lp-1]' }],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 3,
    });
    expect(completion.choices[0].message.content).toBe('A');
    const [first] = completion.choices[0].logprobs!.content!;
    expect(first).toMatchObject({ token: 'A', logprob: Math.log(0.6), bytes: [65] });
    expect(first.top_logprobs.map((top) => top.token)).toEqual(['A', 'B', '<pad1>']);
    expect(first.top_logprobs[1]).toEqual({ token: 'B', logprob: Math.log(0.3), bytes: [66] });
    const plain = await client.chat.completions.create({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'no logprobs [lp-1]' }],
    });
    expect(plain.choices[0]).not.toHaveProperty('logprobs');
    const tooMany = post(`${fake.url}/v1/chat/completions`, {
      model: 'qwen3:8b',
      messages: asUser('x'),
      top_logprobs: 21,
    });
    expect((await tooMany).status).toBe(400);
  });

  it('answers a prompt listing "(X) …" options deterministically over its labels, on /api/chat too', async () => {
    const prompt = '<state>a ticket</state>\nWhich team?\n(A) billing\n(B) tech\n(C) sales\n\nAnswer: (';
    const ask = async () =>
      chat(fake, { model: 'qwen3:8b', messages: asUser(prompt), logprobs: true, top_logprobs: 5 });
    const [one, two] = [await ask(), await ask()];
    expect(two.logprobs).toEqual(one.logprobs);
    const [first] = one.logprobs as Array<{ token: string; top_logprobs: Array<{ token: string; logprob: number }> }>;
    expect((one.message as { content: string }).content).toBe(first.token);
    expect(first.top_logprobs).toHaveLength(5);
    expect(
      first.top_logprobs
        .slice(0, 4)
        .map((top) => top.token)
        .sort(),
    ).toEqual(['A', 'B', 'C', 'The']);
    const mass = first.top_logprobs.slice(0, 4).reduce((sum, top) => sum + Math.exp(top.logprob), 0);
    expect(mass).toBeCloseTo(1, 9);
    const refused = await post(`${fake.url}/api/chat`, { model: 'qwen3:8b', messages: asUser('x'), top_logprobs: -1 });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'top_logprobs must be between 0 and 20' });
  });
});
