// The scripted OpenAI fake, driven by the real `openai` client (streaming and not) and by LangChain's ChatOpenAI,
// the client n8n's OpenAI Chat Model node uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ChatOpenAI } from '@langchain/openai';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from './openai-chat';

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'remember_memory', parameters: { type: 'object', properties: { content: { type: 'string' } } } },
  },
];

describe('fake OpenAI chat server', () => {
  let fake: OpenAiChatFake;
  let control: OpenAiChatFakeControl;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startOpenAiChatFake({ apiKey: 'sk-test-fake' });
    control = new OpenAiChatFakeControl(fake.url);
    client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test-fake', maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it('plays a tool call, then a final answer that uses the tool result', async () => {
    await control.addScript('[unit-1]', [
      { tool_calls: [{ name: 'remember_memory', arguments: { content: 'likes tea' } }] },
      { content: 'Noted: {{last_tool_result}}' },
    ]);
    const first = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools,
      messages: [{ role: 'user', content: 'I like tea [unit-1]' }],
    });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('remember_memory');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ content: 'likes tea' });

    const second = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools,
      messages: [
        { role: 'user', content: 'I like tea [unit-1]' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call!.id, content: 'saved #42' },
      ],
    });
    expect(second.choices[0].message.content).toBe('Noted: saved #42');
    const recorded = await control.requests('[unit-1]');
    expect(recorded.map((r) => r.step)).toEqual([0, 1]);
    expect(recorded[0].authorization).toBe('Bearer sk-test-fake');
  });

  it('streams tool calls and content as SSE chunks', async () => {
    await control.addScript('[unit-2]', [{ tool_calls: [{ name: 'remember_memory', arguments: { content: 'x' } }] }]);
    const stream = await client.chat.completions.create({
      model: 'm',
      tools,
      stream: true,
      messages: [{ role: 'user', content: '[unit-2]' }],
    });
    let args = '';
    let name = '';
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        args += delta.function?.arguments ?? '';
      }
    }
    expect(name).toBe('remember_memory');
    expect(JSON.parse(args)).toEqual({ content: 'x' });
  });

  it('answers LangChain ChatOpenAI with bound tools, and echoes unscripted messages', async () => {
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test-fake',
      configuration: { baseURL: `${fake.url}/v1` },
      maxRetries: 0,
    });
    const echo = await model.invoke('hello there');
    expect(echo.content).toBe('echo: hello there');
    // The echo is of the user's own words: the assistant's context block in front of them is left out.
    const context = '[Context from the assistant, not written by the user]\nThe local time is noon.\n[End of context]';
    expect((await model.invoke(`${context}\n\nhello again`)).content).toBe('echo: hello again');
    await control.addScript('[unit-3]', [{ tool_calls: [{ name: 'remember_memory', arguments: { content: 'y' } }] }]);
    const withTools = await model.bindTools(tools).invoke('[unit-3]');
    expect(withTools.tool_calls?.[0]).toMatchObject({ name: 'remember_memory', args: { content: 'y' } });
  });

  it('fails as scripted with an OpenAI error envelope, and rejects a wrong key', async () => {
    await control.addScript('[unit-4]', [{ fail: { status: 503, message: 'overloaded' } }]);
    await expect(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: '[unit-4]' }] }),
    ).rejects.toMatchObject({ status: 503, message: expect.stringContaining('overloaded') });
    const wrong = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a script that calls a tool the request does not offer', async () => {
    await control.addScript('[unit-5]', [{ tool_calls: [{ name: 'delete_everything', arguments: {} }] }]);
    await expect(
      client.chat.completions.create({ model: 'm', tools, messages: [{ role: 'user', content: '[unit-5]' }] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('transcribes the audio a test registered, in WebM as a browser records it; refuses what is not audio', async () => {
    // A WebM header (EBML, DocType "webm") as MediaRecorder's first bytes, then stand-in frames.
    const webm = Buffer.concat([
      Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84]),
      Buffer.from('webm'),
      Buffer.alloc(64, 7),
    ]);
    await control.addTranscript(webm, 'put oat milk on the list');
    const heard = await client.audio.transcriptions.create({
      file: await OpenAI.toFile(webm, 'voice.webm', { type: 'audio/webm' }),
      model: 'whisper-1',
    });
    expect(heard.text).toBe('put oat milk on the list');
    await expect(
      client.audio.transcriptions.create({
        file: await OpenAI.toFile(Buffer.from('not audio'), 'voice.webm', { type: 'audio/webm' }),
        model: 'whisper-1',
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Invalid file format') });
  });

  it('lists models and returns deterministic unit embeddings', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('gpt-4o-mini');
    const result = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'a', 'b'],
      dimensions: 8,
    });
    expect(result.data[0].embedding).toHaveLength(8);
    expect(result.data[0].embedding).toEqual(result.data[1].embedding);
    expect(result.data[0].embedding).not.toEqual(result.data[2].embedding);
    expect(Math.hypot(...result.data[2].embedding)).toBeCloseTo(1, 6);
  });

  it('can hang a request until the client times out', async () => {
    await control.addScript('[unit-6]', [{ hang: true }]);
    const impatient = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test-fake', maxRetries: 0, timeout: 300 });
    await expect(
      impatient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: '[unit-6]' }] }),
    ).rejects.toThrow(/timed out/i);
  });
});
