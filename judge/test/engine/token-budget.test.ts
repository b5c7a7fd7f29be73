// The token budget counts what is really sent to the model: the OpenAI-compatible backend sends the whole state
// with every question and option group, so its plan equals the sum of the upstream's prompt_tokens. Defaults are
// Jev's: 64k tokens in all, 32k for the state plus the longest question, and hundreds of questions in one call.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend } from '../../src/backends/openai';
import { DEFAULT_ENGINE_LIMITS, JudgeEngine, plainTokenPlan } from '../../src/engine/engine';
import { renderRequest, renderState } from '../../src/engine/render';
import type { ApiError } from '../../src/protocol/errors';
import type { SystemOneRequest } from '../../src/protocol/types';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';
import { EXACT_MODEL, uniformBackend } from '../helpers/exact-backend';

const ID = 'judge-openai-test-2026-01-01';
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function openai(groupSize?: number) {
  fake = await startFakeOpenAI();
  return new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'm', id: ID, groupSize });
}

const STATE = 'The invoice for March was charged twice. '.repeat(20);
const QUESTIONS: SystemOneRequest['questions'] = {
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  team: { type: 'choice', criteria: { billing: 'invoices, refunds', tech: null, sales: null } },
  anger: { type: 'score', criteria: ['calm', 'annoyed', 'furious'] },
};
const jobOf = (questions = QUESTIONS, state: SystemOneRequest['state'] = STATE) => ({
  model: ID,
  state,
  rendered: renderRequest({ state, questions }),
});

describe('the token budget', () => {
  it('OpenAI-compatible: the plan is what is sent, the state once per prompt (= the prompt_tokens)', async () => {
    const backend = await openai();
    const plan = backend.planTokens(jobOf());
    const { response, upstream } = await new JudgeEngine({ backend }).judge({
      model: ID,
      state: STATE,
      questions: QUESTIONS,
    });
    expect(fake!.requests).toHaveLength(3);
    expect(plan.statePasses).toBe(3);
    expect(plan.total).toBe(response.usage.input_tokens);
    // The upstream's own report, apart: below 1024 tokens nothing is cached; one output token per call.
    expect(upstream).toEqual({ promptTokens: plan.total, cachedTokens: 0, outputTokens: 3 });
    const state = backend.countTokens(ID, jobOf().rendered.prefix);
    expect(plan.total).toBeGreaterThan(3 * state);
  });

  it("OpenAI-compatible: the upstream's prompt, cached and output tokens are metered as it reports them", async () => {
    const backend = await openai();
    const longState = 'The invoice for March was charged twice. '.repeat(120);
    const { response, upstream } = await new JudgeEngine({ backend }).judge({
      model: ID,
      state: longState,
      questions: QUESTIONS,
    });
    const reported = fake!.usages;
    expect(reported).toHaveLength(3);
    const sum = (pick: (u: (typeof reported)[number]) => number) => reported.reduce((a, u) => a + pick(u), 0);
    expect(upstream).toEqual({
      promptTokens: sum((u) => u.prompt_tokens),
      cachedTokens: sum((u) => u.prompt_tokens_details.cached_tokens),
      outputTokens: sum((u) => u.completion_tokens),
    });
    // The state is over 1024 tokens and first in every prompt: the later two prompts find it cached, in OpenAI's
    // 128-token steps from 1024.
    const stateTokens = Math.floor(renderState(longState).length / 4);
    const cachedState = 1024 + Math.floor((stateTokens - 1024) / 128) * 128;
    expect(reported.map((u) => u.prompt_tokens_details.cached_tokens)).toEqual([0, cachedState, cachedState]);
    // The judge's own metering still counts every prompt token it sent: the state three times.
    expect(response.usage.input_tokens).toBe(upstream!.promptTokens);
    expect(response.usage.input_tokens).toBe(backend.planTokens(jobOf(QUESTIONS, longState)).total);
  });

  it('OpenAI-compatible: a grouped question plans each group and runoff (runoffs at their longest)', async () => {
    const backend = await openai(15);
    const criteria = Object.fromEntries(
      Array.from({ length: 40 }, (_, k) => [`option ${k}`, k % 7 === 0 ? 'a longer description' : null]),
    );
    const questions = { many: { type: 'choice' as const, criteria } };
    const plan = backend.planTokens(jobOf(questions));
    const { response } = await new JudgeEngine({ backend }).judge({ model: ID, state: STATE, questions });
    expect(plan.statePasses).toBe(fake!.requests.length); // 3 groups + 1 runoff
    expect(plan.statePasses).toBe(4);
    expect(plan.total).toBeGreaterThanOrEqual(response.usage.input_tokens);
    // A 1-option choice sends nothing.
    expect(backend.planTokens(jobOf({ one: { type: 'choice', criteria: { only: null } } }))).toEqual({
      total: 0,
      longest: 0,
      statePasses: 0,
    });
  });

  it('refuses (400 max_tokens_exceeded) a request whose state, sent with each question, passes the limit', async () => {
    const backend = await openai();
    const one = backend.planTokens(jobOf({ refund: QUESTIONS.refund }));
    const engine = new JudgeEngine({ backend, limits: { maxInputTokens: one.total + 10 } });
    await expect(
      engine.judge({ model: ID, state: STATE, questions: { refund: QUESTIONS.refund } }),
    ).resolves.toBeDefined();
    const error = (await engine
      .judge({ model: ID, state: STATE, questions: QUESTIONS })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({
      detail: {
        error_type: 'max_tokens_exceeded',
        message: expect.stringMatching(/needs about \d+ input tokens \(the state is sent 3 times, once per prompt\)/),
      },
    });
    expect(fake!.requests).toHaveLength(1); // only the accepted request reached the upstream
  });

  it('refuses a state plus longest question over maxSequenceTokens, even alone', async () => {
    const engine = new JudgeEngine({ backend: uniformBackend(), limits: { maxSequenceTokens: 100 } });
    const error = (await engine
      .judge({ model: EXACT_MODEL.id, state: 'x'.repeat(400), questions: { q: { type: 'noul', instructions: 'x' } } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.errorType).toBe('max_tokens_exceeded');
    expect(error.message).toMatch(/in one sequence; the limit is 100/);
  });

  it('a backend without a plan counts the state once and every question suffix once', async () => {
    const backend = uniformBackend();
    const job = { ...jobOf(), model: EXACT_MODEL.id };
    const state = backend.countTokens(EXACT_MODEL.id, job.rendered.prefix);
    const suffixes = job.rendered.questions.map((q) => backend.countTokens(EXACT_MODEL.id, q.suffix));
    expect(await plainTokenPlan(backend, job)).toEqual({
      total: state + suffixes.reduce((a, b) => a + b, 0),
      longest: state + Math.max(...suffixes),
      statePasses: 1,
    });
  });
});

describe("default limits (Jev's)", () => {
  it('are 1000 questions, 64k tokens in all and 32k in one sequence', () => {
    expect(DEFAULT_ENGINE_LIMITS).toMatchObject({
      maxQuestions: 1000,
      maxInputTokens: 65_536,
      maxSequenceTokens: 32_768,
    });
  });

  it('answer 800 questions in one call; refuse the 1001st question', async () => {
    const engine = new JudgeEngine({ backend: uniformBackend() });
    const many = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: 'ok?' }]));
    const { response } = await engine.judge({ model: 'jev-latest', state: 's', questions: many(800) });
    expect(Object.keys(response.answers)).toHaveLength(800);
    const error = (await engine
      .judge({ model: 'jev-latest', state: 's', questions: many(1001) })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/1001 questions; at most 1000/);
  });

  it('let a 32k-token state through with one short question', async () => {
    const engine = new JudgeEngine({ backend: uniformBackend() });
    const state = 'abcd'.repeat(32_000); // 32 000 tokens at 4 characters a token, plus the preamble
    await expect(
      engine.judge({ model: 'jev-latest', state, questions: { q: { type: 'noul', instructions: 'ok?' } } }),
    ).resolves.toBeDefined();
    const longer = 'abcd'.repeat(33_000);
    const error = (await engine
      .judge({ model: 'jev-latest', state: longer, questions: { q: { type: 'noul', instructions: 'ok?' } } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.errorType).toBe('max_tokens_exceeded');
  });
});
