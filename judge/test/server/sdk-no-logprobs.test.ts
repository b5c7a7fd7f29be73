// The unmodified @typesafe-ai/sdk@0.6.0 against a judge whose upstream gives no logprobs (each way a provider does
// it): answers come from the sampling fallback, carry method/calibrated/coverage as extra fields the SDK passes
// through, and GET /v1/models says how the model is scored.
import { TypeSafeClient, choice, noul, score } from '@typesafe-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { startFakeOpenAI, type FakeLogprobsSupport, type FakeOpenAI } from '../fakes/openai-logprobs';

const KEY = 'sdk-test-key-abcdef';
const PINNED = 'judge-openai-fake-2026-01-01';
let fake: FakeOpenAI | undefined;
let server: JudgeServer | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  server = fake = undefined;
});

async function judgeOn(logprobs: FakeLogprobsSupport) {
  fake = await startFakeOpenAI({ logprobs });
  server = await startJudgeServer({
    apiKeys: [KEY],
    backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'fake-model', id: PINNED, samples: 5 },
    log: () => undefined,
  });
  return new TypeSafeClient({ apiKey: KEY, baseURL: server.url, retry: { maxRetries: 0 }, logLevel: 'off' });
}

describe.each(['ignored', 'null', 'refused'] as const)('the SDK, upstream logprobs %s', (support) => {
  it('gets noul, choice and score answers marked not calibrated, and the method in models.list()', async () => {
    const client = await judgeOn(support);
    const models = await client.models.list();
    expect(models.map((m) => (m as { scoring?: unknown }).scoring)).toEqual(
      models.map(() => ({ method: 'samples', calibrated: false })),
    );
    const { data } = await client
      .systemOne({
        state: { ticket: 'My invoice is wrong and I want a refund.' },
        questions: {
          refund: noul('Does the customer ask for a refund?'),
          team: choice('Which team?', { billing: null, tech: null, sales: null }),
          anger: score('How upset?', ['calm', 'annoyed', 'furious']),
        },
      })
      .withResponse();
    const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
    const answers = data.answers as unknown as Record<string, Record<string, unknown>>;
    expect(answers.refund).toMatchObject({ type: 'noul', method: 'samples', calibrated: false });
    expect(answers.team).toMatchObject({ type: 'choice', method: 'samples', calibrated: false });
    expect(answers.anger).toMatchObject({ type: 'score', method: 'samples', calibrated: false });
    expect(sum(answers.team.probabilities as Record<string, number>)).toBeCloseTo(1, 9);
    for (const answer of Object.values(answers)) {
      expect(answer.coverage).toBeGreaterThan(0);
      expect(answer.coverage).toBeLessThanOrEqual(1);
    }
    // The probe (from models.list), then 5 samples for each of the 3 questions.
    expect(fake!.requests).toHaveLength(1 + 3 * 5);
  });
});
