// Upstreams without logprobs: Anthropic's layer ignoring them, a server answering `logprobs: null`, and OpenAI's
// reasoning models refusing them (400). The backend probes, falls back to sampling, marks its answers not
// calibrated, counts its requests as documented, and refuses answers below the coverage floor.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend, type OpenAIBackendOptions } from '../../../src/backends/openai';
import { BackendError } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import type { ChoiceAnswer, NoulAnswer, ScoreAnswer, SystemOneRequest } from '../../../src/protocol/types';
import {
  labelsInPrompt,
  sampledReply,
  startFakeOpenAI,
  type ChatCompletionRequestBody,
  type FakeLogprobsSupport,
  type FakeOpenAI,
  type FakeReply,
} from '../../fakes/openai-logprobs';

const ID = 'judge-openai-test-2026-01-01';
const SAMPLES = 4;
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function backendOn(
  logprobs: FakeLogprobsSupport,
  options: Partial<OpenAIBackendOptions> = {},
  respond?: (body: ChatCompletionRequestBody, i: number) => FakeReply,
) {
  fake = await startFakeOpenAI({ logprobs, respond });
  return new OpenAIBackend({
    baseUrl: fake.baseUrl,
    upstreamModel: 'm',
    id: ID,
    samples: SAMPLES,
    concurrency: 16,
    ...options,
  });
}

const promptOf = (body: ChatCompletionRequestBody) => body.messages.map((m) => m.content).join('\n');
const REQUEST: SystemOneRequest = {
  model: ID,
  state: 'The invoice for March was charged twice.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: { type: 'choice', criteria: { billing: null, tech: null, sales: null } },
    anger: { type: 'score', criteria: ['calm', 'annoyed', 'furious'] },
  },
};

/** What the sampling fallback must make of the fake's replies to `requests`: counts per label + ½, normalised. */
function expectedFromSamples(requests: { body: ChatCompletionRequestBody; index: number }[]) {
  const labels = labelsInPrompt(promptOf(requests[0].body));
  const counts = labels.map(() => 0.5);
  let labelled = 0;
  for (const { body, index } of requests) {
    const first = sampledReply(promptOf(body), index).split(')')[0].toLowerCase();
    const at = labels.findIndex((label) => label.toLowerCase() === first);
    if (at === -1) continue;
    counts[at]++;
    labelled++;
  }
  const total = counts.reduce((a, b) => a + b, 0);
  return { labels, p: counts.map((c) => c / total), coverage: labelled / requests.length };
}

describe.each(['ignored', 'null', 'refused'] as const)('an upstream whose logprobs are %s', (support) => {
  it('the probe picks the sampling fallback; noul, choice and score come back marked not calibrated', async () => {
    const backend = await backendOn(support);
    expect(await backend.probe()).toBe('samples');
    expect(fake!.requests).toHaveLength(1);
    expect(await backend.scoringOf()).toEqual({ method: 'samples', calibrated: false });

    const { response } = await new JudgeEngine({ backend }).judge(REQUEST);
    // k requests per question, one completion each; none asks for logprobs or more than one choice.
    const sampled = fake!.requests.slice(1).map((body, i) => ({ body, index: i + 1 }));
    expect(sampled).toHaveLength(3 * SAMPLES);
    for (const { body } of sampled) {
      expect(body).toMatchObject({ temperature: 1, max_completion_tokens: 16 });
      expect(body).not.toHaveProperty('logprobs');
      expect(body).not.toHaveProperty('top_logprobs');
      expect(body).not.toHaveProperty('max_tokens');
      expect(body).not.toHaveProperty('n');
    }
    const byQuestion = (text: string) => sampled.filter(({ body }) => promptOf(body).includes(text));

    const refund = response.answers.refund as NoulAnswer;
    const yes = expectedFromSamples(byQuestion('Does the customer ask for a refund?'));
    expect(yes.labels).toEqual(['Yes', 'No']);
    expect(refund.noul).toBeCloseTo(yes.p[0], 12);
    expect(refund).toMatchObject({ method: 'samples', calibrated: false });
    expect(refund.coverage).toBeCloseTo(yes.coverage, 12);

    const team = response.answers.team as ChoiceAnswer;
    const teams = expectedFromSamples(byQuestion('(A) billing'));
    expect(team.probabilities.billing).toBeCloseTo(teams.p[0], 12);
    expect(team.probabilities.sales).toBeCloseTo(teams.p[2], 12);
    expect(team).toMatchObject({ method: 'samples', calibrated: false, coverage: teams.coverage });

    const anger = response.answers.anger as ScoreAnswer;
    const levels = expectedFromSamples(byQuestion('furious'));
    expect(anger.probabilities['2']).toBeCloseTo(levels.p[2], 12);
    expect(anger).toMatchObject({ method: 'samples', calibrated: false, coverage: levels.coverage });
    expect(response.usage.input_tokens).toBe(
      sampled.reduce((sum, { body }) => sum + Math.ceil(promptOf(body).length / 4), 0),
    );
  });

  it('without a probe, the first call learns it from the replies: one logprobs try per prompt, once', async () => {
    const backend = await backendOn(support);
    const engine = new JudgeEngine({ backend });
    const first = await engine.judge(REQUEST);
    expect(first.response.answers.refund).toMatchObject({ method: 'samples', calibrated: false });
    const tries = fake!.requests.filter((body) => body.logprobs === true);
    expect(tries).toHaveLength(3);
    expect(fake!.requests).toHaveLength(3 + 3 * SAMPLES);
    await engine.judge(REQUEST);
    expect(fake!.requests).toHaveLength(3 + 6 * SAMPLES);
  });
});

describe('the scoring method', () => {
  it('an upstream with logprobs is probed once to top_logprobs, and its answers say so with their coverage', async () => {
    const backend = await backendOn('returned');
    expect(await backend.scoringOf()).toEqual({ method: 'top_logprobs', calibrated: true });
    expect(await backend.scoringOf()).toEqual({ method: 'top_logprobs', calibrated: true });
    expect(fake!.requests).toHaveLength(1);
    const { response, coveredMass } = await new JudgeEngine({ backend }).judge(REQUEST);
    expect(fake!.requests).toHaveLength(4);
    for (const [name, answer] of Object.entries(response.answers)) {
      expect(answer).toMatchObject({ method: 'top_logprobs', calibrated: true, coverage: coveredMass[name] });
      expect(answer.coverage).toBeGreaterThan(0);
    }
  });

  it('scoring "top_logprobs" pinned: no logprobs is the 502 logprobs_unsupported, and nothing is probed', async () => {
    const backend = await backendOn('null', { scoring: 'top_logprobs' });
    expect(await backend.scoringOf()).toEqual({ method: 'top_logprobs', calibrated: true });
    expect(fake!.requests).toHaveLength(0);
    const error = await new JudgeEngine({ backend }).judge(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('logprobs_unsupported');
    expect((error as BackendError).message).toMatch(/backend.scoring is "top_logprobs"/);
  });

  it('scoring "samples" pinned samples even a server with logprobs, and plans k sends per prompt', async () => {
    const backend = await backendOn('returned', { scoring: 'samples' });
    const { response } = await new JudgeEngine({ backend }).judge(REQUEST);
    expect(fake!.requests).toHaveLength(3 * SAMPLES);
    expect(fake!.requests.every((body) => body.logprobs === undefined)).toBe(true);
    expect(response.answers.team).toMatchObject({ method: 'samples', calibrated: false });
  });

  it('a request over the input limit because of its samples is refused naming the samples setting', async () => {
    const backend = await backendOn('returned', { scoring: 'samples' });
    const { plan } = await new JudgeEngine({ backend }).prepareWithPlan(REQUEST);
    const engine = new JudgeEngine({ backend, limits: { maxInputTokens: plan.total - 1 } });
    const error = (await engine.judge(REQUEST).catch((e: unknown) => e)) as { status: number; message: string };
    expect(error.status).toBe(400);
    expect(error.message).toContain(
      `(the state is sent ${3 * SAMPLES} times, ${SAMPLES} samples of each prompt: the upstream returns no logprobs, so answers are sampled (JUDGE_OPENAI_SAMPLES sets how many))`,
    );
    expect(fake!.requests).toHaveLength(0);
  });

  it('probes on demand: concurrent probes share one request, a later probe asks again', async () => {
    const backend = await backendOn('returned');
    expect(await Promise.all([backend.probe(), backend.probe(), backend.scoringOf()])).toEqual([
      'top_logprobs',
      'top_logprobs',
      { method: 'top_logprobs', calibrated: true },
    ]);
    expect(fake!.requests).toHaveLength(1);
    expect(fake!.requests[0]).toMatchObject({ logprobs: true, top_logprobs: 20, max_tokens: 1, temperature: 0 });
    await backend.probe();
    expect(fake!.requests).toHaveLength(2);
  });

  it('a probe that fails reports "unknown" and leaves the method to the next probe or call', async () => {
    const backend = await backendOn('returned', { maxRetries: 0 }, (_body, i) =>
      i === 0 ? { status: 500 } : { topLogprobs: [{ token: 'Yes', logprob: Math.log(0.9) }] },
    );
    expect(await backend.scoringOf()).toEqual({ method: 'unknown', calibrated: false });
    expect(await backend.scoringOf()).toEqual({ method: 'top_logprobs', calibrated: true });
    expect(fake!.requests).toHaveLength(2);
  });

  it('a reasoning model refusing logprobs with a 400 is not retried: it is the signal to sample', async () => {
    const backend = await backendOn('refused');
    await backend.probe();
    expect(fake!.requests).toHaveLength(1);
    expect(fake!.requests[0]).toMatchObject({ logprobs: true });
  });
});

describe('the coverage floor', () => {
  /** Replies alternating "Yes) …" and a sentence naming no label: half of the samples are labelled. */
  const halfLabelled = (_body: ChatCompletionRequestBody, i: number): FakeReply => ({
    text: i % 2 === 0 ? 'Yes) it does' : 'Hmm, hard to say.',
  });
  const oneNoul = { model: ID, state: 's', questions: { n: { type: 'noul', instructions: 'q?' } } };

  it('refuses a sampled answer below it with a 502 naming the question and the floor', async () => {
    const backend = await backendOn('null', { scoring: 'samples', minCoverage: 0.6 }, halfLabelled);
    const error = (await new JudgeEngine({ backend }).judge(oneNoul).catch((e: unknown) => e)) as BackendError;
    expect(error).toBeInstanceOf(BackendError);
    expect(error.status).toBe(502);
    expect(error.code).toBe('coverage_below_floor');
    expect(error.publicMessage).toBe(
      'The answer to question "n" covers 50.0% of the model\'s probability with its labels, below this ' +
        "server's floor of 60.0% (backend.minCoverage).",
    );
    expect(error.toApiError().body()).toEqual({
      detail: { error_type: 'coverage_below_floor', message: expect.stringContaining('floor of 60.0%') },
    });
  });

  it('lets an answer at the floor through', async () => {
    const backend = await backendOn('null', { scoring: 'samples', minCoverage: 0.5 }, halfLabelled);
    const { response } = await new JudgeEngine({ backend }).judge(oneNoul);
    expect(response.answers.n).toMatchObject({ coverage: 0.5, calibrated: false });
    expect((response.answers.n as NoulAnswer).noul).toBeCloseTo((2 + 0.5) / (2 + 1), 12);
  });

  it('refuses a top_logprobs answer whose labels cover less than the floor', async () => {
    const backend = await backendOn('returned', { minCoverage: 0.9 }, () => ({
      topLogprobs: [
        { token: 'Yes', logprob: Math.log(0.6) },
        { token: 'No', logprob: Math.log(0.2) },
        { token: 'The', logprob: Math.log(0.2) },
      ],
    }));
    const error = (await new JudgeEngine({ backend }).judge(oneNoul).catch((e: unknown) => e)) as BackendError;
    expect(error.code).toBe('coverage_below_floor');
    expect(error.publicMessage).toMatch(/covers 80\.0% .* floor of 90\.0%/);
  });

  it('no sampled reply naming a label is labels_not_covered, not a uniform guess', async () => {
    const backend = await backendOn('null', { scoring: 'samples' }, () => ({ text: 'I cannot tell.' }));
    const error = (await new JudgeEngine({ backend }).judge(oneNoul).catch((e: unknown) => e)) as BackendError;
    expect(error.code).toBe('labels_not_covered');
    expect(fake!.requests).toHaveLength(SAMPLES);
  });
});
