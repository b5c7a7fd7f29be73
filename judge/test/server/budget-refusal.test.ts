// A spending cap's refusal through the whole server: the model gateway's 402 budget_exceeded reaches the HTTP caller
// as a 402 in Jev's envelope, error_type budget_exceeded, with the gateway's sentence (what the checks rely on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer, type LogLine } from '../../src/server';
import { budgetExceededReply, startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';

const KEY = 'budget-test-key-0123456789';
const SENTENCE = 'The daily budget of job check is spent (2.00 of 2.00 USD); it resets at 2026-11-29T00:00:00Z.';
let fake: FakeOpenAI;
let server: JudgeServer;
const logs: LogLine[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI({ respond: () => budgetExceededReply(SENTENCE) });
  server = await startJudgeServer({
    apiKeys: [KEY],
    backend: {
      kind: 'openai',
      baseUrl: fake.baseUrl,
      upstreamModel: 'fake-model',
      id: 'judge-openai-fake-2026-01-01',
      description: 'test',
      releaseDate: '2026-01-01',
    },
    log: (line) => logs.push(line),
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

describe('a spending cap refusing the Judge', () => {
  it('answers 402 with error_type budget_exceeded and the gateway sentence, asking the upstream once', async () => {
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } }),
    });
    expect(response.status).toBe(402);
    expect(await response.json()).toEqual({ detail: { error_type: 'budget_exceeded', message: SENTENCE } });
    expect(fake.requests).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ status: 402, error_type: 'budget_exceeded', level: 'warn' });
  });
});
