// Spending caps at the gateway: each call reserved before it is sent, priced by the provider's usage afterwards, and
// refused (402, named, never sent) once a cap has no room.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../../../test/fakes/openai-chat';
import { setCap } from '../../src/budget/caps';
import { withCaller } from '../../src/gateway/caller';
import { useAssistantDatabase } from '../database';
import { PROVIDER_KEY, startTestGateway, type TestGateway } from './harness';

const db = useAssistantDatabase();
let provider: OpenAiChatFake;
let control: OpenAiChatFakeControl;
let gateway: TestGateway;

// $1 per million prompt tokens, $0.50 cached, $4 output: easy to check by hand.
const PRICE = { input: 1, cached: 0.5, output: 4 };
const chat = (message: string) => ({
  model: withCaller('priced-model', { job: 'agent' }),
  messages: [{ role: 'user', content: message }],
  max_tokens: 100,
});

beforeAll(async () => {
  provider = await startOpenAiChatFake({ apiKey: PROVIDER_KEY });
  control = new OpenAiChatFakeControl(provider.url);
  gateway = await startTestGateway(db.pool, {
    ASSISTANT_LLM_BASE_URL: `${provider.url}/v1`,
    ASSISTANT_LLM_API_KEY: PROVIDER_KEY,
    ASSISTANT_MODEL_PRICES: `priced-model=${PRICE.input}/${PRICE.cached}/${PRICE.output}`,
  });
});

afterAll(async () => {
  await gateway?.close();
  await provider?.close();
});

describe('spending caps at the gateway', () => {
  it("prices each call by the provider's usage, and refuses the one a cap cannot cover, without sending it", async () => {
    // Room for a couple of small calls at their largest (prompt + 100 output tokens at $4/M = ~$0.0004 each).
    await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0.001 });
    const first = await gateway.post('llm/v1/chat/completions', chat('first question'));
    expect(first.status).toBe(200);
    const [row] = await gateway.calls();
    const expected = Math.ceil(row.prompt_tokens! * PRICE.input + row.output_tokens! * PRICE.output);
    expect(row).toMatchObject({ outcome: 'ok', cost_micros: String(expected), priced_by: 'override' });

    let refused: Response | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const response = await gateway.post('llm/v1/chat/completions', chat(`more questions ${i}`));
      if (response.status !== 200) refused = response;
    }
    expect(refused?.status).toBe(402);
    const { error } = (await refused!.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('budget_exceeded');
    expect(error.message).toMatch(/^The model budget for today \(\$0\.0010\) (is spent|cannot cover this call)/);
    const rows = await gateway.calls();
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ outcome: 'over_budget', status: 402 });
    // Nothing past the cap reached the provider: one request per call that passed.
    expect(await control.requests('')).toHaveLength(rows.filter((r) => r.outcome === 'ok').length);
    // What was spent equals the calls' costs: the reservations settled to the usage.
    const window = await db.pool.query('SELECT spent_micros::int, reserved_micros::int FROM assistant.budget_windows');
    const total = rows.reduce((sum, r) => sum + Number(r.cost_micros ?? 0), 0);
    expect(window.rows).toEqual([{ spent_micros: total, reserved_micros: 0 }]);
  });

  it("writes a refusal's ledger row before answering, however slow the ledger, so the caller's failure handling sees it", async () => {
    // A turn's failure handling reads the gateway's row to tell a spent cap (no turn failure) from a broken call.
    const slowLedger = new Proxy(db.pool, {
      get(target, name, receiver) {
        if (name !== 'query') return Reflect.get(target, name, receiver);
        return async (text: string, values?: unknown[]) => {
          if (/INSERT INTO assistant\.model_calls/.test(text)) await new Promise((r) => setTimeout(r, 300));
          return target.query(text, values);
        };
      },
    });
    const slow = await startTestGateway(slowLedger, {
      ASSISTANT_LLM_BASE_URL: `${provider.url}/v1`,
      ASSISTANT_LLM_API_KEY: PROVIDER_KEY,
      ASSISTANT_MODEL_PRICES: `priced-model=${PRICE.input}/${PRICE.cached}/${PRICE.output}`,
    });
    try {
      await setCap(db.pool, { scope: 'instance', period: 'day', limitUsd: 0 });
      const before = await db.pool.query('SELECT coalesce(max(id), 0) AS id FROM assistant.model_calls');
      const refused = await slow.post('llm/v1/chat/completions', chat('a question past a spent cap'));
      expect(refused.status).toBe(402);
      const written = await db.pool.query('SELECT outcome FROM assistant.model_calls WHERE id > $1', [
        before.rows[0].id,
      ]);
      expect(written.rows).toEqual([{ outcome: 'over_budget' }]);
    } finally {
      await slow.close();
    }
  });
});
