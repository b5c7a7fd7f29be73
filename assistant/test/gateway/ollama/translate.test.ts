// OpenAI ⇄ Ollama /api/chat. The Ollama fixtures are the examples of https://github.com/ollama/ollama/blob/main/docs/api.md
// ("Chat request (Streaming with tools)", "(No streaming, with tools)", "(With history, with tools)").
import { describe, expect, it } from 'vitest';
import {
  fromOllamaChat,
  ollamaChunksToOpenAi,
  OllamaStreamError,
  readNdjson,
  toOllamaChat,
  type OllamaChatChunk,
  type OllamaChatResponse,
} from '../../../src/gateway/ollama/translate';
import type { ChatCompletionChunk, ChatRequest } from '../../../src/gateway/openai-types';

const getWeather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get the weather in a given city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'The city to get the weather for' } },
      required: ['city'],
    },
  },
};

/** docs/api.md "Chat request (No streaming, with tools)", response. */
const toolCallAnswer: OllamaChatResponse = {
  model: 'llama3.2',
  created_at: '2025-07-07T20:32:53.844124Z',
  message: {
    role: 'assistant',
    content: '',
    tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Tokyo' } } }],
  },
  done_reason: 'stop',
  done: true,
  total_duration: 3244883583,
  load_duration: 2969184542,
  prompt_eval_count: 169,
  prompt_eval_duration: 141656333,
  eval_count: 18,
  eval_duration: 133293625,
};

async function* fromArray<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

describe('toOllamaChat', () => {
  it('writes the history with a tool call and its result as docs/api.md "With history, with tools" shows it', () => {
    const request: ChatRequest = {
      model: 'assistant',
      messages: [
        { role: 'user', content: 'what is the weather in Toronto?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Toronto"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '11 degrees celsius' },
      ],
      tools: [getWeather],
    };
    expect(toOllamaChat(request, 'llama3.2:latest-ctx8192', '30m')).toEqual({
      model: 'llama3.2:latest-ctx8192',
      messages: [
        { role: 'user', content: 'what is the weather in Toronto?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Toronto' } } }],
        },
        { role: 'tool', content: '11 degrees celsius', tool_name: 'get_weather', tool_call_id: 'call_1' },
      ],
      tools: [getWeather],
      stream: false,
      keep_alive: '30m',
      truncate: false,
    });
  });

  it('maps the sampling fields into options and a JSON schema into format; keeps the stream flag', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
    const request: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in' },
            { type: 'text', text: 'this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      stream: true,
      max_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      seed: 42,
      response_format: { type: 'json_schema', json_schema: { schema } },
    };
    const body = toOllamaChat(request, 'm-ctx4096', '5m');
    expect(body.stream).toBe(true);
    expect(body.options).toEqual({ num_predict: 256, temperature: 0.2, top_p: 0.9, seed: 42, stop: ['END'] });
    expect(body.format).toEqual(schema);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is in\nthis picture?', images: ['iVBORw0KGgo='] },
    ]);
    expect(body.tools).toBeUndefined();
  });

  it('prefers max_completion_tokens, reads json_object as "json", leaves options out when none is set', () => {
    const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(toOllamaChat({ ...base, max_tokens: 10, max_completion_tokens: 20 }, 'm', '5m').options).toEqual({
      num_predict: 20,
    });
    expect(toOllamaChat({ ...base, response_format: { type: 'json_object' } }, 'm', '5m').format).toBe('json');
    const plain = toOllamaChat(base, 'm', '5m');
    expect(plain).not.toHaveProperty('options');
    expect(plain).not.toHaveProperty('format');
    expect(toOllamaChat({ ...base, tools: [getWeather], tool_choice: 'none' }, 'm', '5m').tools).toBeUndefined();
  });

  it('asks /api/chat for logprobs with top_logprobs alternatives, as the judge asks /v1', () => {
    const request: ChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'Answer: (' }],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
    };
    expect(toOllamaChat(request, 'm', '5m')).toMatchObject({ logprobs: true, top_logprobs: 20 });
    const plain = toOllamaChat({ model: 'm', messages: request.messages }, 'm', '5m');
    expect(plain).not.toHaveProperty('logprobs');
    expect(plain).not.toHaveProperty('top_logprobs');
  });

  it('refuses tool-call arguments that are not JSON, naming the call', () => {
    const request: ChatRequest = {
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{city:' } }],
        },
      ],
    };
    expect(() => toOllamaChat(request, 'm', '5m')).toThrow(/call_9 \(get_weather\).*not JSON/);
  });
});

describe('fromOllamaChat', () => {
  it('answers tool calls with generated ids, JSON-string arguments, finish_reason tool_calls and the usage', () => {
    const completion = fromOllamaChat(toolCallAnswer, 'assistant-model');
    const choice = completion.choices[0];
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'assistant-model',
      // As Ollama's own OpenAI layer marks its replies: the judge reads it to send one request at a time.
      system_fingerprint: 'fp_ollama',
      created: Math.floor(Date.parse('2025-07-07T20:32:53.844124Z') / 1000),
      usage: { prompt_tokens: 169, completion_tokens: 18, total_tokens: 187 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      },
    ]);
  });

  it('keeps an id Ollama gave, and reads done_reason length', () => {
    const withId = fromOllamaChat(
      {
        ...toolCallAnswer,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_abc', function: { index: 0, name: 'get_weather', arguments: {} } }],
        },
      },
      'm',
    );
    expect(withId.choices[0].message.tool_calls?.[0]).toMatchObject({ id: 'call_abc', function: { arguments: '{}' } });
    const cut = fromOllamaChat(
      { ...toolCallAnswer, message: { role: 'assistant', content: 'The sky is' }, done_reason: 'length' },
      'm',
    );
    expect(cut.choices[0]).toMatchObject({ message: { content: 'The sky is' }, finish_reason: 'length' });
  });
});

describe('logprobs from Ollama', () => {
  // api/types.go Logprob: the token, its logprob, its bytes and the top_logprobs alternatives.
  const logprobs = [
    {
      token: 'A',
      logprob: -0.105,
      bytes: [65],
      top_logprobs: [
        { token: 'A', logprob: -0.105, bytes: [65] },
        { token: 'B', logprob: -2.3, bytes: [66] },
      ],
    },
  ];

  it('answers them as choices[0].logprobs.content, and null when Ollama gave none', () => {
    const answer = { ...toolCallAnswer, message: { role: 'assistant' as const, content: 'A' }, logprobs };
    expect(fromOllamaChat(answer, 'm').choices[0].logprobs).toEqual({ content: logprobs });
    expect(fromOllamaChat({ ...answer, logprobs: undefined }, 'm').choices[0].logprobs).toBeNull();
  });

  it('streams each chunk with the logprobs of its tokens', async () => {
    const chunks: OllamaChatChunk[] = [
      {
        model: 'm',
        created_at: '2025-07-07T20:32:53Z',
        message: { role: 'assistant', content: 'A' },
        logprobs,
        done: false,
      },
      { model: 'm', created_at: '2025-07-07T20:32:53Z', message: { role: 'assistant', content: '' }, done: true },
    ];
    const out = await collect(ollamaChunksToOpenAi(fromArray(chunks), 'm', false));
    expect(out.map((chunk) => chunk.choices[0].logprobs)).toEqual([null, { content: logprobs }, null]);
  });
});

describe('ollamaChunksToOpenAi', () => {
  it('streams a role delta, content, a finish chunk and, when asked, the usage', async () => {
    const chunks: OllamaChatChunk[] = [
      {
        model: 'llama3.2',
        created_at: '2023-08-04T08:52:19.385406455-07:00',
        message: { role: 'assistant', content: 'The' },
        done: false,
      },
      {
        model: 'llama3.2',
        created_at: '2023-08-04T08:52:19.4Z',
        message: { role: 'assistant', content: ' sky' },
        done: false,
      },
      {
        model: 'llama3.2',
        created_at: '2023-08-04T19:22:45.499127Z',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        total_duration: 4883583458,
        load_duration: 1334875,
        prompt_eval_count: 26,
        prompt_eval_duration: 342546000,
        eval_count: 282,
        eval_duration: 4535599000,
      },
    ];
    const out = await collect(ollamaChunksToOpenAi(fromArray(chunks), 'assistant-model', true));
    expect(out.map((chunk) => [chunk.choices[0]?.delta, chunk.choices[0]?.finish_reason ?? null])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'The' }, null],
      [{ content: ' sky' }, null],
      [{}, 'stop'],
      [undefined, null],
    ]);
    expect(out[4]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 26, completion_tokens: 282, total_tokens: 308 },
    });
    expect(new Set(out.map((chunk) => chunk.id)).size).toBe(1);
    expect(out.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'assistant-model')).toBe(
      true,
    );
    expect(out.every((chunk) => chunk.system_fingerprint === 'fp_ollama')).toBe(true);

    const withoutUsage = await collect(ollamaChunksToOpenAi(fromArray(chunks), 'm', false));
    expect(withoutUsage).toHaveLength(4);
  });

  it('streams tool calls with running indexes and ends with finish_reason tool_calls', async () => {
    const answer = toolCallAnswer;
    const chunks: OllamaChatChunk[] = [
      { ...answer, done: false, done_reason: undefined },
      {
        ...answer,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'get_time', arguments: { zone: 'Asia/Tokyo' } } }],
        },
        done: false,
      },
      { ...answer, message: { role: 'assistant', content: '' } },
    ];
    const out: ChatCompletionChunk[] = await collect(ollamaChunksToOpenAi(fromArray(chunks), 'm', false));
    const calls = out.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      },
      {
        index: 1,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_time', arguments: '{"zone":"Asia/Tokyo"}' },
      },
    ]);
    expect(out[out.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('throws what Ollama said when a line is an error, and when the stream stops before done', async () => {
    const broken = [
      {
        model: 'm',
        created_at: '2025-01-01T00:00:00Z',
        message: { role: 'assistant' as const, content: 'a' },
        done: false,
      },
      { error: 'an error was encountered while running the model' } as unknown as OllamaChatChunk,
    ];
    await expect(collect(ollamaChunksToOpenAi(fromArray(broken), 'm', false))).rejects.toThrow(OllamaStreamError);
    await expect(collect(ollamaChunksToOpenAi(fromArray(broken), 'm', false))).rejects.toThrow(
      'Ollama: an error was encountered while running the model',
    );
    await expect(collect(ollamaChunksToOpenAi(fromArray(broken.slice(0, 1)), 'm', false))).rejects.toThrow(
      /before its last/,
    );
  });
});

describe('readNdjson', () => {
  it('reads lines split across chunks (even inside a multi-byte character) and a last line without a newline', async () => {
    const text = '{"a":1}\n{"b":"Grüße"}\n\n{"c":3}';
    const bytes = new TextEncoder().encode(text);
    const umlaut = text.indexOf('ü') + 1; // inside the two bytes of ü
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 3));
        controller.enqueue(bytes.slice(3, umlaut));
        controller.enqueue(bytes.slice(umlaut));
        controller.close();
      },
    });
    expect(await collect(readNdjson(stream))).toEqual([{ a: 1 }, { b: 'Grüße' }, { c: 3 }]);
    expect(await collect(readNdjson(streamOf(['{"x":', '1}\n', '{"y":2}\n'])))).toEqual([{ x: 1 }, { y: 2 }]);
  });
});
