// The fake llama.cpp server (its /completion shape and limits), and the judge's OpenAI-compatible backend on
// llama.cpp's native /completion: the probe finds it (GET /props), reads the top `n_probs`, reports the coverage and
// never calls it exact, and sends as many requests at once as the server has slots.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend } from '../../judge/src/backends/openai';
import { LLAMACPP_N_PROBS } from '../../judge/src/backends/openai/native';
import { JudgeEngine } from '../../judge/src/engine/engine';
import type { ChoiceAnswer } from '../../judge/src/protocol/types';
import { startJudgeServer, type JudgeServer } from '../../judge/src/server';
import { hashTopLogprobs, labelsInPrompt } from '../../judge/test/fakes/openai-logprobs';
import { startLlamacppFake, type LlamacppFake } from './llamacpp';
import { postJson } from './http-util';

const ID = 'judge-openai-qwen-2026-01-01';
const KEY = 'llamacpp-test-key-abcdef';
let llama: LlamacppFake | undefined;
let server: JudgeServer | undefined;
afterEach(async () => {
  await server?.close();
  await llama?.close();
  llama = server = undefined;
});

describe('the fake llama.cpp server', () => {
  it('/completion without a prompt is its 400', async () => {
    llama = await startLlamacppFake();
    expect(await postJson(`${llama.root}/completion`, { n_predict: 1 })).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "[json.exception.out_of_range.403] key 'prompt' not found",
          type: 'invalid_request_error',
        },
      },
    });
  });

  it('lists the top n_probs as top_logprobs (top_probs after sampling) and reuses the slot cache', async () => {
    llama = await startLlamacppFake();
    const prompt = `${'state '.repeat(40)}\n(A) one\n(B) two\nAnswer: (`;
    const first = await postJson(`${llama.root}/completion`, { prompt, n_predict: 1, n_probs: 3 });
    const [position] = first.body.completion_probabilities as { top_logprobs: { token: string; logprob: number }[] }[];
    expect(position.top_logprobs.map((t) => [t.token, t.logprob])).toEqual(
      hashTopLogprobs(prompt, 3).map((t) => [t.token, t.logprob]),
    );
    expect(first.body.timings).toMatchObject({ cache_n: 0, predicted_n: 1 });
    const after = await postJson(`${llama.root}/completion`, { prompt, n_probs: 2, post_sampling_probs: true });
    const [sampled] = after.body.completion_probabilities as { top_probs: unknown[] }[];
    expect(sampled.top_probs).toHaveLength(2);
    expect((after.body.timings as { cache_n: number }).cache_n).toBe(Math.ceil(prompt.length / 4) - 1);
    const tokens = await postJson(`${llama.root}/tokenize`, { content: 'A', with_pieces: true });
    expect(tokens.body.tokens).toEqual([{ id: expect.any(Number), piece: 'A' }]);
  });
});

describe("the judge's OpenAI-compatible backend on llama.cpp's /completion", () => {
  const twentyOptions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`option ${i}`, null]));
  const request = {
    model: ID,
    state: 'Which option?',
    questions: { pick: { type: 'choice', criteria: twentyOptions } },
  };

  it('reads the top n_probs folded onto the labels, reports the coverage, and is not called exact', async () => {
    llama = await startLlamacppFake({ slots: 2 });
    const backend = new OpenAIBackend({ baseUrl: llama.baseUrl, upstreamModel: 'qwen-fake', id: ID, groupSize: 20 });
    expect(await backend.probe()).toBe('top_logprobs');
    expect(backend.scoringRoute).toBe('llamacpp');
    expect(backend.concurrency).toBe(2);
    server = await startJudgeServer({ apiKeys: [KEY], backend, log: () => undefined });
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    const listed = (await models.json()) as { models: { name: string; scoring?: unknown }[] };
    expect(listed.models.find((m) => m.name === ID)?.scoring).toEqual({ method: 'top_logprobs', calibrated: true });

    const { response, upstream } = await new JudgeEngine({ backend }).judge(request);
    const asked = llama.requests.at(-1)!;
    expect(asked.body.n_probs).toBeGreaterThanOrEqual(LLAMACPP_N_PROBS);
    const prompt = asked.body.prompt as string;
    // The fake's own distribution: each label's token, plus " a" (a variant of A) folded onto A; "The" is no label.
    const own = hashTopLogprobs(prompt, 1000);
    const mass = labelsInPrompt(prompt).map((label) =>
      own
        .filter((t) => t.token.trim().toLowerCase() === label.toLowerCase())
        .reduce((s, t) => s + Math.exp(t.logprob), 0),
    );
    const total = mass.reduce((x, y) => x + y, 0);
    const answer = response.answers.pick as ChoiceAnswer;
    Object.keys(twentyOptions).forEach((option, i) => {
      expect(answer.probabilities[option]).toBeCloseTo(mass[i] / total, 12);
    });
    expect(answer).toMatchObject({ method: 'top_logprobs', calibrated: true });
    expect(answer.coverage).toBeCloseTo(1 - Math.exp(own.find((t) => t.token === 'The')!.logprob), 12);
    expect(answer.coverage).toBeLessThan(1);
    expect(upstream).toEqual({
      promptTokens: Math.ceil(prompt.length / 4),
      cachedTokens: asked.cacheN,
      outputTokens: 1,
    });
  });

  it('a one-slot server gets the questions one at a time', async () => {
    llama = await startLlamacppFake({ slots: 1 });
    const backend = new OpenAIBackend({ baseUrl: llama.baseUrl, upstreamModel: 'qwen-fake', id: ID });
    await backend.probe();
    expect(backend.concurrency).toBe(1);
    const questions = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`q${i}`, { type: 'noul' as const, instructions: `Is point ${i} true?` }]),
    );
    await new JudgeEngine({ backend }).judge({ model: ID, state: 'A long shared state. '.repeat(20), questions });
    expect(llama.stats.maxInFlight).toBe(1);
    // Each prompt after the first finds the state in the slot's cache.
    for (const { cacheN } of llama.requests.slice(2)) expect(cacheN).toBeGreaterThan(100);
  });
});
