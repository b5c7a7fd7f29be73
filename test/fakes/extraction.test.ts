// The chat fake's capture extractor, driven by the real `openai` client with the request memory capture sends:
// names, "is my" and "replaces … as my" relations, facts quoted from the user's lines, the invalid-answer markers,
// and scripts left to the agent's requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { extractionRequest, validateExtraction } from 'assistant-core';
import { fakeExtraction } from './extraction';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from './openai-chat';

const FIRST = 'Stefan Huber from Huber & Partner is my accountant';
const SECOND = 'Anna Berger replaces Stefan as my accountant from March';

describe('fakeExtraction', () => {
  it("reads the user's sentences: people, companies, relations to the user and facts, quoted", () => {
    const conversation = `User: ${FIRST}. Anna's number is +43 660 1234567\n\nAssistant: Noted, Maria Novak is your dentist.`;
    expect(fakeExtraction(conversation)).toEqual({
      entities: [
        { name: 'Stefan Huber', type: 'person' },
        { name: 'Huber & Partner', type: 'company' },
      ],
      relations: [
        { from: 'Stefan Huber', relation: 'accountant_of', to: 'the user', evidence: FIRST },
        { from: 'Stefan Huber', relation: 'works_at', to: 'Huber & Partner', evidence: FIRST },
      ],
      facts: [
        { text: FIRST, evidence: FIRST },
        { text: "Anna's number is +43 660 1234567", evidence: "Anna's number is +43 660 1234567" },
      ],
    });
    expect(fakeExtraction(`User: ${SECOND}\nUser: Acme GmbH is my employer`)).toMatchObject({
      entities: [
        { name: 'Anna Berger', type: 'person' },
        { name: 'Acme GmbH', type: 'company' },
      ],
      relations: [
        { from: 'Anna Berger', relation: 'accountant_of', to: 'the user', evidence: SECOND },
        { from: 'Acme GmbH', relation: 'employer_of', to: 'the user' },
      ],
    });
  });
});

describe('the fake answering a capture request', () => {
  let fake: OpenAiChatFake;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startOpenAiChatFake();
    client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  });
  afterAll(() => fake.close());

  const ask = async (sourceText: string, retryError?: string) => {
    const body = extractionRequest({ sourceText }, { model: 'gpt-4o-mini', retryError });
    const answer = await client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    const call = answer.choices[0].message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('record_extraction');
    return call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined;
  };

  it('calls record_extraction with a valid extraction, never a script matching the conversation', async () => {
    await new OpenAiChatFakeControl(fake.url).addScript(FIRST, [{ content: 'scripted reply' }]);
    const extraction = validateExtraction(await ask(`User: ${FIRST}`));
    expect(extraction.relations.map((r) => r.relation)).toEqual(['accountant_of', 'works_at']);
  });

  it('answers an invalid extraction for [bad-extraction] every time, for [bad-extraction-once] before the retry', async () => {
    const bad = await ask(`User: ${FIRST} [bad-extraction]`);
    expect(() => validateExtraction(bad)).toThrow('entities: must be a list');
    await expect(ask(`User: ${FIRST} [bad-extraction]`, 'entities: must be a list')).resolves.toMatchObject({
      entities: 'Stefan Huber',
    });
    await expect(ask(`User: ${FIRST} [bad-extraction-once]`)).resolves.toMatchObject({ entities: 'Stefan Huber' });
    const retried = await ask(`User: ${FIRST} [bad-extraction-once]`, 'entities: must be a list');
    expect(validateExtraction(retried).entities.map((e) => e.name)).toEqual(['Stefan Huber', 'Huber & Partner']);
  });
});
