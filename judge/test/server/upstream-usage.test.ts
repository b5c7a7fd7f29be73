// What the upstream model server reports (prompt tokens, of which cached, and output tokens) reaches the usage
// records and the log line as upstream tokens, apart from the judge's own metered and priced input tokens.
import { afterEach, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer, type LogLine } from '../../src/server';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';
import { call } from '../helpers/http-call';

const KEY = 'upstream-usage-key';
const ID = 'judge-openai-fake-2026-01-01';
let fake: FakeOpenAI | undefined;
let server: JudgeServer | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  server = fake = undefined;
});

describe('upstream tokens in the usage records', () => {
  it('are summed per day in GET /v1/usage and logged per request, the cost still on input_tokens', async () => {
    fake = await startFakeOpenAI();
    const lines: LogLine[] = [];
    server = await startJudgeServer({
      apiKeys: [KEY],
      backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'fake-model', id: ID },
      log: (line) => lines.push(line),
    });
    const state = 'The invoice for March was charged twice. '.repeat(120);
    const body = {
      model: ID,
      state,
      questions: {
        refund: { type: 'noul', instructions: 'Refund?' },
        team: { type: 'choice', criteria: { billing: null, tech: null } },
      },
    };
    let inputTokens = 0;
    for (let i = 0; i < 2; i++) {
      const answer = await call(server.url, '/v1/systemone', { key: KEY, body: JSON.stringify(body) });
      expect(answer.status).toBe(200);
      inputTokens += (answer.body as { usage: { input_tokens: number } }).usage.input_tokens;
    }
    const reported = fake.usages;
    expect(reported).toHaveLength(4);
    const upstream = {
      prompt_tokens: reported.reduce((a, u) => a + u.prompt_tokens, 0),
      cached_tokens: reported.reduce((a, u) => a + u.prompt_tokens_details.cached_tokens, 0),
      output_tokens: reported.reduce((a, u) => a + u.completion_tokens, 0),
    };
    expect(upstream.cached_tokens).toBeGreaterThan(0);

    const usage = await call(server.url, '/v1/usage', { key: KEY });
    const report = usage.body as { days: Record<string, unknown>[]; total: Record<string, unknown> };
    expect(report.days).toEqual([expect.objectContaining({ requests: 2, input_tokens: inputTokens })]);
    expect(report.days[0].upstream_tokens).toEqual(upstream);
    expect(report.total).toMatchObject({ input_tokens: inputTokens, upstream_tokens: upstream });
    expect(report.total.cost).toBeCloseTo((inputTokens * 0.042) / 1e6, 12);

    const judged = lines.filter((line) => line.path === '/v1/systemone');
    expect(judged).toHaveLength(2);
    const logged = (field: 'upstream_prompt_tokens' | 'upstream_cached_tokens' | 'upstream_output_tokens') =>
      judged.reduce((sum, line) => sum + (line[field] ?? 0), 0);
    expect(logged('upstream_prompt_tokens')).toBe(upstream.prompt_tokens);
    expect(logged('upstream_cached_tokens')).toBe(upstream.cached_tokens);
    expect(logged('upstream_output_tokens')).toBe(upstream.output_tokens);
  });
});
