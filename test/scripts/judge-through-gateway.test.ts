// The judge's model calls go through the model gateway and are in its ledger: the real judge server (systemone-judge)
// with its OpenAI-compatible backend at <gateway>/judge/v1 as job=judge (as docker-compose wires it), the gateway
// (assistant-core) with its ledger in a real Postgres, and behind it (1) the judge's own OpenAI fake, (2) the fake
// Ollama. The judge asks chat completions with logprobs (judge/src/backends/openai): the ledger's route is "chat";
// a /v1/completions call on the judge upstream is checked apart (route "completions", Ollama's derived model). A
// spent judge cap: the gateway's 402 budget_exceeded reaches the judge's caller as such (a check is then skipped).
import {
  listModelCalls,
  readGatewaySettings,
  removeCap,
  setCap,
  startGateway,
  withCaller,
  type ModelCallRow,
  type RunningGateway,
} from 'assistant-core';
import { startJudgeServer, type JudgeServer } from 'systemone-judge';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAssistantDatabase, type TestDatabase } from '../../assistant/test/database';
import { startFakeOpenAI, type FakeOpenAI } from '../../judge/test/fakes/openai-logprobs';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../fakes/ollama';

const GATEWAY_KEY = 'gateway-key-for-the-judge-0123456789';
const PROVIDER_KEY = 'sk-judge-provider-key-abcdef123456';
const JUDGE_KEY = 'judge-client-key-0123456789';

/** A System One request with two questions: two upstream calls. */
const SYSTEM_ONE = {
  model: 'jev-latest',
  state: 'My invoice is wrong and I want a refund.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: { type: 'choice', criteria: { billing: 'invoices and refunds', tech: null, sales: null } },
  },
};

interface JudgeThroughGateway {
  gateway: RunningGateway;
  judge: JudgeServer;
  /** POSTs SYSTEM_ONE to the judge. */
  ask(): Promise<{ status: number; body: { answers?: Record<string, { type: string }> } }>;
  /** The ledger rows written since the gateway started, after every write settled. */
  ledger(): Promise<ModelCallRow[]>;
  close(): Promise<void>;
}

async function startJudgeThroughGateway(
  db: TestDatabase,
  providerBaseUrl: string,
  model: string,
): Promise<JudgeThroughGateway> {
  const since = new Date();
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: db.server.url,
    JUDGE_OPENAI_BASE_URL: providerBaseUrl,
    JUDGE_OPENAI_API_KEY: PROVIDER_KEY,
  });
  const gateway = await startGateway({ settings, ledger: db.pool });
  const judge = await startJudgeServer({
    apiKeys: [JUDGE_KEY],
    backend: {
      kind: 'openai',
      baseUrl: `${gateway.url}/judge/v1`,
      apiKey: GATEWAY_KEY,
      upstreamModel: withCaller(model, { job: 'judge' }),
      id: 'judge-openai-through-gateway-2026-11-28',
      description: 'the judge through the gateway',
      releaseDate: '2026-11-28',
    },
    log: () => undefined,
  });
  return {
    gateway,
    judge,
    ask: async () => {
      const response = await fetch(`${judge.url}/v1/systemone`, {
        method: 'POST',
        headers: { authorization: `Bearer ${JUDGE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(SYSTEM_ONE),
      });
      return {
        status: response.status,
        body: (await response.json()) as { answers?: Record<string, { type: string }> },
      };
    },
    // This judge's model only: a call another test's judge made late does not count here.
    ledger: async () => {
      await gateway.flushed();
      return (await listModelCalls(db.pool, since)).filter((row) => row.model === model);
    },
    close: async () => {
      await judge.close();
      await gateway.close();
    },
  };
}

function expectAnswered(reply: Awaited<ReturnType<JudgeThroughGateway['ask']>>): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.answers?.refund?.type).toBe('noul');
  expect(reply.body.answers?.team?.type).toBe('choice');
}

/** Every row a judge call through the gateway, answered and counted, for the bare model id. */
function expectJudgeRows(rows: ModelCallRow[], model: string): void {
  for (const row of rows) {
    expect(row).toMatchObject({ job: 'judge', upstream: 'judge', route: 'chat', model, status: 200, outcome: 'ok' });
    expect(row.prompt_tokens).toBeGreaterThan(0);
  }
}

let db: TestDatabase;
let running: JudgeThroughGateway | undefined;

beforeAll(async () => {
  db = await startAssistantDatabase();
});
afterEach(async () => {
  await running?.close();
  running = undefined;
});
afterAll(async () => {
  await db?.stop();
});

describe('the judge through the gateway', () => {
  let openAi: FakeOpenAI;
  afterEach(async () => openAi?.close());

  it('to an OpenAI-compatible provider: one ledger row per upstream request, job judge, the bare model id', async () => {
    openAi = await startFakeOpenAI({ apiKey: PROVIDER_KEY });
    running = await startJudgeThroughGateway(db, openAi.baseUrl, 'fake-model');

    expectAnswered(await running.ask());

    expect(openAi.requests).toHaveLength(2);
    for (const request of openAi.requests)
      expect(request).toMatchObject({ model: 'fake-model', logprobs: true, top_logprobs: 20, max_tokens: 1 });
    expect(openAi.authorizations).toEqual([`Bearer ${PROVIDER_KEY}`, `Bearer ${PROVIDER_KEY}`]);
    const rows = await running.ledger();
    expect(rows).toHaveLength(openAi.requests.length);
    expectJudgeRows(rows, 'fake-model');
    const reported = openAi.requests.map((request) => Math.ceil(request.messages[0].content.length / 4));
    expect(rows.map((row) => row.prompt_tokens).sort()).toEqual(reported.sort());
  });

  it("a spent judge cap: the judge answers 402 budget_exceeded with the gateway's sentence, the provider is not asked", async () => {
    openAi = await startFakeOpenAI({ apiKey: PROVIDER_KEY });
    running = await startJudgeThroughGateway(db, openAi.baseUrl, 'fake-model-capped');
    await setCap(db.pool, { scope: 'job', job: 'judge', period: 'day', limitTokens: 0 });
    try {
      const reply = (await running.ask()) as {
        status: number;
        body: { detail?: { error_type: string; message: string } };
      };
      expect(reply.status).toBe(402);
      expect(reply.body.detail?.error_type).toBe('budget_exceeded');
      expect(reply.body.detail?.message).toContain("The judge job's model budget for today (0 tokens) is spent");
      expect(openAi.requests).toEqual([]);
      expect((await running.ledger()).map((row) => row.outcome)).toContain('over_budget');
    } finally {
      await removeCap(db.pool, { scope: 'job', job: 'judge', period: 'day' });
    }
  });
});

describe('the judge through the gateway to Ollama', () => {
  let ollama: OllamaFake;
  afterEach(async () => ollama?.close());

  it('uses the derived model, created once and never reloaded, with a ledger row per upstream request', async () => {
    ollama = await startOllamaFake();
    const control = new OllamaFakeControl(ollama.url);
    running = await startJudgeThroughGateway(db, `${ollama.url}/v1`, 'qwen3:8b');

    expectAnswered(await running.ask());
    expectAnswered(await running.ask());

    const seen = await control.requests();
    expect(seen).toHaveLength(4);
    for (const request of seen) {
      expect(request).toMatchObject({ route: '/api/chat', model: 'qwen3:8b-ctx16384', numCtx: 16384, cut: null });
      expect(request.body).toMatchObject({ logprobs: true, top_logprobs: 20 });
    }
    expect(await control.stats()).toMatchObject({ creates: 1, reloads: 1, cuts: 0, maxConcurrent: 1 });
    const rows = await running.ledger();
    expect(rows).toHaveLength(seen.length);
    expectJudgeRows(rows, 'qwen3:8b');
    const reported = seen.map((request) => request.promptEvalCount);
    expect(rows.map((row) => row.prompt_tokens).sort()).toEqual(reported.sort());
  });

  it('forwards /v1/completions on the judge upstream with the derived model, metered from its usage', async () => {
    ollama = await startOllamaFake();
    const control = new OllamaFakeControl(ollama.url);
    running = await startJudgeThroughGateway(db, `${ollama.url}/v1`, 'qwen3:8b');
    const response = await fetch(`${running.gateway.url}/judge/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: withCaller('qwen3:8b', { job: 'judge' }),
        prompt: 'Is the sky blue? [through-gateway]',
        max_tokens: 1,
        logprobs: 5,
      }),
    });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as {
      choices: Array<{ text: string }>;
      usage: { prompt_tokens: number };
    };
    const [seen] = await control.requests('[through-gateway]');
    expect(seen).toMatchObject({ route: '/v1/completions', model: 'qwen3:8b-ctx16384', numCtx: 16384, cut: null });
    expect(completion.usage.prompt_tokens).toBe(seen.promptEvalCount);
    const rows = await running.ledger();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ job: 'judge', upstream: 'judge', route: 'completions', model: 'qwen3:8b' });
    expect(rows[0]).toMatchObject({ prompt_tokens: seen.promptEvalCount, outcome: 'ok' });
    expect(await control.stats()).toMatchObject({ creates: 1, reloads: 1 });
  });
});
