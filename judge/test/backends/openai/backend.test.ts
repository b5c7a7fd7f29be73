// The OpenAI-compatible backend against a loopback /v1/chat/completions that returns scripted top_logprobs.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend, type OpenAIBackendOptions } from '../../../src/backends/openai';
import { foldTopLogprobs } from '../../../src/backends/openai/fold';
import { BackendError } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import type { ChoiceAnswer, NoulAnswer, ScoreAnswer } from '../../../src/protocol/types';
import {
  budgetExceededReply,
  labelsInPrompt,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeReply,
  type ChatCompletionRequestBody,
} from '../../fakes/openai-logprobs';

const ID = 'judge-openai-test-2026-01-01';
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function engineWith(
  respond: ((body: ChatCompletionRequestBody, i: number) => FakeReply) | undefined,
  options: Partial<OpenAIBackendOptions> = {},
) {
  fake = await startFakeOpenAI({ respond, apiKey: 'sk-upstream' });
  const backend = new OpenAIBackend({
    baseUrl: fake.baseUrl,
    apiKey: 'sk-upstream',
    upstreamModel: 'fake-model',
    id: ID,
    ...options,
  });
  return new JudgeEngine({ backend, aliases: { 'jev-latest': ID } });
}

const lp = Math.log;
const promptOf = (body: ChatCompletionRequestBody) => body.messages.map((m) => m.content).join('\n');

describe('fold', () => {
  it('folds " B", "b", "(B" onto B, adds variants, and reports covered mass', () => {
    const folded = foldTopLogprobs(
      [
        { token: ' B', logprob: lp(0.4) },
        { token: 'b', logprob: lp(0.1) },
        { token: 'A', logprob: lp(0.2) },
        { token: '(C', logprob: lp(0.1) },
        { token: 'The', logprob: lp(0.15) },
      ],
      ['A', 'B', 'C'],
    );
    expect(folded.logprobs.map(Math.exp).map((p) => +p.toFixed(12))).toEqual([0.2, 0.5, 0.1]);
    expect(folded.coveredMass).toBeCloseTo(0.8, 12);
    expect(folded.missing).toEqual([]);
  });

  it('gives missing labels min(lowest listed, uncovered / missing)', () => {
    const folded = foldTopLogprobs(
      [
        { token: 'Yes', logprob: lp(0.9) },
        { token: 'Maybe', logprob: lp(0.06) },
      ],
      ['Yes', 'No'],
    );
    expect(folded.missing).toEqual(['No']);
    expect(Math.exp(folded.logprobs[1])).toBeCloseTo(0.04, 12);
    const capped = foldTopLogprobs(
      [
        { token: 'Yes', logprob: lp(0.5) },
        { token: 'x', logprob: lp(0.01) },
      ],
      ['Yes', 'No'],
    );
    expect(Math.exp(capped.logprobs[1])).toBeCloseTo(0.01, 12);
  });
});

describe('OpenAIBackend', () => {
  it('sends one chat completion per question with logprobs, top_logprobs 20, max_tokens 1, temperature 0', async () => {
    const engine = await engineWith(undefined);
    await engine.judge({
      model: 'jev-latest',
      state: 'The printer is on fire.',
      questions: {
        fire: { type: 'noul', instructions: 'Is something on fire?' },
        team: { type: 'choice', criteria: { facilities: null, it: null } },
      },
    });
    expect(fake!.requests).toHaveLength(2);
    for (const body of fake!.requests) {
      expect(body).toMatchObject({
        model: 'fake-model',
        max_tokens: 1,
        temperature: 0,
        logprobs: true,
        top_logprobs: 20,
      });
      expect(body.messages).toHaveLength(1);
      expect(body.messages[0].role).toBe('user');
      expect(body.messages[0].content.startsWith('You are a careful judge.')).toBe(true);
      expect(body.messages[0].content).toContain('The printer is on fire.');
      expect(body.messages[0].content.endsWith('Answer: (')).toBe(true);
    }
    const prompts = fake!.requests.map(promptOf).sort();
    expect(prompts.some((p) => p.includes('Is something on fire?') && !p.includes('facilities'))).toBe(true);
    expect(fake!.authorizations.every((a) => a === 'Bearer sk-upstream')).toBe(true);
  });

  it('reads folded, renormalised distributions and counts upstream prompt tokens', async () => {
    const engine = await engineWith((body) => {
      const prompt = promptOf(body);
      if (prompt.includes('(Yes)'))
        return {
          topLogprobs: [
            { token: ' Yes', logprob: lp(0.5) },
            { token: 'yes', logprob: lp(0.1) },
            { token: 'No', logprob: lp(0.2) },
            { token: 'I', logprob: lp(0.2) },
          ],
        };
      if (prompt.includes('Levels'))
        return {
          topLogprobs: [
            { token: '2', logprob: lp(0.5) },
            { token: ' 1', logprob: lp(0.25) },
            { token: '0', logprob: lp(0.25) },
          ],
        };
      return {
        topLogprobs: [
          { token: 'a', logprob: lp(0.3) },
          { token: ' B', logprob: lp(0.3) },
          { token: 'A', logprob: lp(0.3) },
        ],
      };
    });
    const { response, coveredMass } = await engine.judge({
      model: 'jev-latest',
      state: 's',
      questions: {
        n: { type: 'noul', instructions: 'q' },
        c: { type: 'choice', criteria: { x: null, y: null } },
        s: { type: 'score', criteria: ['a', 'b', 'c'] },
      },
    });
    expect((response.answers.n as NoulAnswer).noul).toBeCloseTo(0.75, 12);
    const c = response.answers.c as ChoiceAnswer;
    expect(c.choice).toBe('x');
    expect(c.probabilities.x).toBeCloseTo(2 / 3, 12);
    const s = response.answers.s as ScoreAnswer;
    expect(s.probabilities).toEqual({ '0': 0.25, '1': 0.25, '2': 0.5 });
    expect(s.score).toBeCloseTo(1.25, 12);
    expect(coveredMass.n).toBeCloseTo(0.8, 12);
    expect(coveredMass.c).toBeCloseTo(0.9, 12);
    const expectedTokens = fake!.requests.reduce((sum, b) => sum + Math.ceil(promptOf(b).length / 4), 0);
    expect(response.usage).toEqual({ input_tokens: expectedTokens, output_tokens: 0 });
  });

  it('a label the model never lists gets the uncovered mass share', async () => {
    const engine = await engineWith(() => ({
      topLogprobs: [
        { token: 'A', logprob: lp(0.7) },
        { token: 'B', logprob: lp(0.2) },
        { token: 'so', logprob: lp(0.05) },
      ],
    }));
    const { response } = await engine.judge({
      model: 'jev-latest',
      state: 's',
      questions: { c: { type: 'choice', criteria: { a: null, b: null, c: null } } },
    });
    const c = response.answers.c as ChoiceAnswer;
    // C gets min(0.05, 0.05 / 1) = 0.05; then renormalised over 0.95.
    expect(c.probabilities.c).toBeCloseTo(0.05 / 0.95, 12);
    expect(c.probabilities.a + c.probabilities.b + c.probabilities.c).toBeCloseTo(1, 12);
  });

  it('asks more than 15 options in groups and combines them by the runoff rule', async () => {
    // The fake model weighs option k (named "o<k>") by k+1 in any prompt: Luce-consistent, so grouping must
    // reproduce p_k = (k+1) / Σ(j+1) over all 40 options exactly.
    const engine = await engineWith((body) => {
      const prompt = promptOf(body);
      const labels = labelsInPrompt(prompt);
      const names = [...prompt.slice(prompt.lastIndexOf('</state>')).matchAll(/^\((\w+)\) o(\d+)$/gm)].map((m) =>
        Number(m[2]),
      );
      const total = names.reduce((a, k) => a + k + 1, 0);
      return { topLogprobs: labels.map((label, i) => ({ token: label, logprob: lp((names[i] + 1) / total) })) };
    });
    const criteria = Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`o${k}`, null]));
    const { response } = await engine.judge({
      model: 'jev-latest',
      state: 's',
      questions: { many: { type: 'choice', criteria } },
    });
    const answer = response.answers.many as ChoiceAnswer;
    const total = (40 * 41) / 2;
    for (let k = 0; k < 40; k++) expect(answer.probabilities[`o${k}`]).toBeCloseTo((k + 1) / total, 10);
    expect(answer.choice).toBe('o39');
    // 40 options in groups of ≤15: 3 groups (14, 13, 13) + one runoff; no prompt lists more than 15 options.
    expect(fake!.requests).toHaveLength(4);
    for (const body of fake!.requests) expect(labelsInPrompt(promptOf(body)).length).toBeLessThanOrEqual(15);
  });

  it('answers a 1-option choice with probability 1 without asking the model', async () => {
    const engine = await engineWith(() => ({ topLogprobs: [{ token: 'Sure', logprob: lp(0.9) }] }));
    const { response } = await engine.judge({
      model: 'jev-latest',
      state: 's',
      questions: { only: { type: 'choice', criteria: { yes: null } } },
    });
    expect(response.answers.only).toEqual({ type: 'choice', choice: 'yes', probabilities: { yes: 1 }, confidence: 1 });
    expect(fake!.requests).toHaveLength(0);
  });

  it('retries 429 honouring Retry-After, then succeeds', async () => {
    const times: number[] = [];
    const engine = await engineWith((_body, i) => {
      times.push(Date.now());
      if (i < 2)
        return {
          status: 429,
          headers: { 'retry-after': '0.3' },
          body: { error: { message: 'slow down', type: 'rate_limit' } },
        };
      return {
        topLogprobs: [
          { token: 'Yes', logprob: lp(0.9) },
          { token: 'No', logprob: lp(0.1) },
        ],
      };
    });
    const { response } = await engine.judge({
      model: 'jev-latest',
      state: 's',
      questions: { n: { type: 'noul', instructions: 'q' } },
    });
    expect((response.answers.n as NoulAnswer).noul).toBeCloseTo(0.9, 12);
    expect(fake!.requests).toHaveLength(3);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(280);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(280);
  });

  it('gives up on endless 429 with a 503 BackendError, and refuses a Retry-After beyond the cap', async () => {
    const engine = await engineWith(() => ({ status: 429, headers: { 'retry-after-ms': '10' } }), { maxRetries: 2 });
    const error = await engine
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(503);
    expect(fake!.requests).toHaveLength(3);
    await fake!.close();

    const patient = await engineWith(() => ({ status: 429, headers: { 'retry-after': '3600' } }), {
      maxRetryAfterMs: 1000,
    });
    const refused = await patient
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(refused.status).toBe(503);
    expect(refused.message).toMatch(/retry after 3600 s/);
    expect(fake!.requests).toHaveLength(1);
  });

  it('a server without logprobs gets a clear error when the scoring is pinned to top_logprobs', async () => {
    const engine = await engineWith(() => ({ noLogprobs: true }), { scoring: 'top_logprobs' });
    const error = await engine
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.code).toBe('logprobs_unsupported');
    expect(error.message).toMatch(/returned no logprobs for model "fake-model"/);
  });

  it('a model that puts no mass on any label is an error, not a uniform guess', async () => {
    const engine = await engineWith(() => ({ topLogprobs: [{ token: 'Sure', logprob: lp(0.9) }] }));
    const error = await engine
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error.code).toBe('labels_not_covered');
  });

  it('a wrong upstream key is a 502 BackendError, not retried', async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-right' });
    const backend = new OpenAIBackend({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong', upstreamModel: 'm', id: ID });
    const engine = new JudgeEngine({ backend });
    const error = await engine
      .judge({ model: ID, state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(502);
    expect(error.message).not.toContain('sk-wrong');
    expect(fake.authorizations).toHaveLength(1);
  });

  it("a spending cap's 402 budget_exceeded is a 402 BackendError with the gateway's sentence, not retried", async () => {
    const sentence = 'The daily budget of user u1 is spent (0.50 of 0.50 USD); it resets at 2026-11-29T00:00:00Z.';
    const engine = await engineWith(() => budgetExceededReply(sentence));
    const error = await engine
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(402);
    expect(error.code).toBe('budget_exceeded');
    expect(error.publicMessage).toBe(sentence);
    expect(fake!.requests).toHaveLength(1);
    expect((error as BackendError).toApiError().body()).toEqual({
      detail: { error_type: 'budget_exceeded', message: sentence },
    });
  });

  it('a 402 without the budget_exceeded code stays an upstream refusal (502)', async () => {
    const engine = await engineWith(() => ({
      status: 402,
      body: { error: { message: 'Payment required', type: 'billing_error', code: 'insufficient_quota' } },
    }));
    const error = await engine
      .judge({ model: 'jev-latest', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } })
      .catch((e) => e);
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_rejected');
  });

  it('keeps at most `concurrency` upstream requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    fake = await startFakeOpenAI({
      respond: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return {
          topLogprobs: [
            { token: 'Yes', logprob: lp(0.5) },
            { token: 'No', logprob: lp(0.5) },
          ],
        };
      },
    });
    const backend = new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'm', id: ID, concurrency: 2 });
    const questions = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `q${i}` }]),
    );
    await new JudgeEngine({ backend }).judge({ model: ID, state: 's', questions });
    expect(fake.requests).toHaveLength(8);
    expect(peak).toBe(2);
  });
});
