// The fake vLLM (its real limits and shapes), and the judge's OpenAI-compatible backend through it and through the
// one-slot fake Ollama: all questions of a call upstream at once, the state first and byte-identical so the prefix
// cache serves it once; one at a time, state first, where the upstream runs one request at a time. Counters only.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend, SERVING_ENGINE_CONCURRENCY } from '../../judge/src/backends/openai';
import { JudgeEngine } from '../../judge/src/engine/engine';
import { renderState } from '../../judge/src/engine/render';
import type { ChoiceAnswer } from '../../judge/src/protocol/types';
import { hashTopLogprobs, labelsInPrompt } from '../../judge/test/fakes/openai-logprobs';
import type { RecordedOllamaRequest } from './ollama';
import { startOllamaFake, type OllamaFake } from './ollama';
import { BLOCK_TOKENS, CHARS_PER_TOKEN, startVllmFake, type VllmFake } from './vllm';
import { postJson } from './http-util';

const BLOCK_CHARS = BLOCK_TOKENS * CHARS_PER_TOKEN;
const ID = 'judge-openai-qwen-2026-01-01';
let vllm: VllmFake | undefined;
let ollama: OllamaFake | undefined;
afterEach(async () => {
  await vllm?.close();
  await ollama?.close();
  vllm = ollama = undefined;
});

const STATE = 'Ticket 4411: the March invoice was charged twice and the customer wants the second charge back. '.repeat(
  30,
);
const twentyQuestions = () =>
  Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`q${i}`, { type: 'noul' as const, instructions: `Is point ${i} true?` }]),
  );
/** The characters every prompt shares before its question, as the chat template puts them. */
const stateChars = (templateHead: string) => templateHead.length + renderState(STATE).length;

describe('the fake vLLM', () => {
  it('refuses more logprobs than --max-logprobs with its 400', async () => {
    vllm = await startVllmFake();
    const chat = await postJson(`${vllm.baseUrl}/chat/completions`, {
      model: 'qwen-fake',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      top_logprobs: 21,
    });
    expect(chat).toEqual({
      status: 400,
      body: {
        error: {
          message:
            'Requested sample logprobs of 21, which is greater than max allowed: 20 (parameter=logprobs, value=21)',
          type: 'BadRequestError',
          param: 'logprobs',
          code: 400,
        },
      },
    });
    const text = await postJson(`${vllm.baseUrl}/completions`, { model: 'qwen-fake', prompt: 'hi', logprobs: 25 });
    expect(text.status).toBe(400);
    expect(vllm.stats.inFlight).toBe(0);
  });

  it('/v1/completions: the legacy logprobs shape, and cached_tokens from full 16-token blocks', async () => {
    vllm = await startVllmFake();
    const prompt = `${'x'.repeat(3 * BLOCK_CHARS + 10)}\n(A) one\n(B) two\nAnswer: (`;
    const first = await postJson(`${vllm.baseUrl}/completions`, { model: 'qwen-fake', prompt, logprobs: 3 });
    const choice = (first.body.choices as Record<string, unknown>[])[0];
    const logprobs = choice.logprobs as { tokens: string[]; token_logprobs: number[]; top_logprobs: object[] };
    expect(logprobs.tokens).toEqual([choice.text]);
    expect(Object.keys(logprobs.top_logprobs[0])).toHaveLength(3);
    expect(first.body.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 0 } });
    const again = await postJson(`${vllm.baseUrl}/completions`, {
      model: 'qwen-fake',
      prompt: prompt + ' B',
      logprobs: 1,
    });
    expect(again.body.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 3 * BLOCK_TOKENS } });
  });
});

describe("the judge's OpenAI-compatible backend through a serving engine", () => {
  it('sends the 20 questions of one call together: one batch, the state prefilled once', async () => {
    vllm = await startVllmFake({ paused: true });
    const backend = new OpenAIBackend({ baseUrl: vllm.baseUrl, upstreamModel: 'qwen-fake', id: ID });
    expect(backend.concurrency).toBe(SERVING_ENGINE_CONCURRENCY);
    const answered = new JudgeEngine({ backend }).judge({ model: ID, state: STATE, questions: twentyQuestions() });
    await expect.poll(() => vllm!.stats.waiting).toBe(20);
    vllm.resume();
    const { response, upstream } = await answered;
    expect(Object.keys(response.answers)).toHaveLength(20);
    expect(vllm.stats.batches).toEqual([20]);
    // Metered as the engine reports it: what its prefix cache served is counted apart.
    expect(upstream).toEqual({
      promptTokens: vllm.stats.prefilledTokens + vllm.stats.cachedTokens,
      cachedTokens: vllm.stats.cachedTokens,
      outputTokens: 20,
    });
    expect(vllm.stats.maxInFlight).toBe(20);
    // State first and byte-identical: every prompt starts with the same characters, up to the state's close.
    const shared = stateChars('<|im_start|>user\n');
    const head = vllm.requests[0].prompt.slice(0, shared);
    for (const { prompt } of vllm.requests) expect(prompt.slice(0, shared)).toBe(head);
    // Prefilled once: the other 19 recompute at most the partial block where the state ends.
    expect(shared).toBeGreaterThan(20 * BLOCK_CHARS);
    expect(vllm.stats.prefilledStateChars).toBeGreaterThanOrEqual(shared);
    expect(vllm.stats.prefilledStateChars).toBeLessThan(shared + 19 * BLOCK_CHARS);
    for (const { cachedTokens } of vllm.requests.slice(1)) {
      expect(cachedTokens * CHARS_PER_TOKEN).toBeGreaterThan(shared - BLOCK_CHARS);
    }
  });

  it('with concurrency 1 they arrive one at a time, state first, and the state is still prefilled once', async () => {
    vllm = await startVllmFake();
    const backend = new OpenAIBackend({ baseUrl: vllm.baseUrl, upstreamModel: 'qwen-fake', id: ID, concurrency: 1 });
    await new JudgeEngine({ backend }).judge({ model: ID, state: STATE, questions: twentyQuestions() });
    expect(vllm.stats.maxInFlight).toBe(1);
    expect(vllm.stats.batches).toEqual(Array.from({ length: 20 }, () => 1));
    const shared = stateChars('<|im_start|>user\n');
    expect(vllm.stats.prefilledStateChars).toBeLessThan(shared + 19 * BLOCK_CHARS);
  });
});

describe("the judge's OpenAI-compatible backend: exact label ids on vLLM", () => {
  const twentyOptions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`option ${i}`, null]));
  const request = {
    model: ID,
    state: 'Which option?',
    questions: { pick: { type: 'choice', criteria: twentyOptions } },
  };

  it("probes them first and reads every label's own probability, outside the top-k too", async () => {
    vllm = await startVllmFake();
    const backend = new OpenAIBackend({
      baseUrl: vllm.baseUrl,
      upstreamModel: 'qwen-fake',
      id: ID,
      groupSize: 20,
      topLogprobs: 5,
    });
    expect(await backend.probe()).toBe('exact_label_ids');
    expect(await backend.scoringOf()).toEqual({ method: 'exact_label_ids', calibrated: true });
    const { response } = await new JudgeEngine({ backend }).judge(request);
    const asked = vllm.requests.at(-1)!;
    expect((asked.body.logprob_token_ids as number[]).length).toBe(20);
    // The fake's own distribution over the 20 label tokens, renormalised: the judge's answer, exactly.
    const seed = asked.prompt.slice('<|im_start|>user\n'.length, asked.prompt.lastIndexOf('<|im_end|>'));
    const labels = labelsInPrompt(seed);
    const own = hashTopLogprobs(seed, 100);
    const mass = labels.map((label) => Math.exp(own.find((t) => t.token === label)!.logprob));
    const total = mass.reduce((a, b) => a + b, 0);
    const answer = response.answers.pick as ChoiceAnswer;
    Object.keys(twentyOptions).forEach((option, i) => {
      expect(answer.probabilities[option]).toBeCloseTo(mass[i] / total, 12);
    });
    expect(answer).toMatchObject({ method: 'exact_label_ids', calibrated: true });
    expect(answer.coverage).toBeCloseTo(total, 12);
  });

  it.each(['ignored', 'refused'] as const)('a server that %s logprob_token_ids is read by its top-k', async (how) => {
    vllm = await startVllmFake({ logprobTokenIds: how });
    const backend = new OpenAIBackend({ baseUrl: vllm.baseUrl, upstreamModel: 'qwen-fake', id: ID, groupSize: 20 });
    expect(await backend.probe()).toBe('top_logprobs');
    const { response } = await new JudgeEngine({ backend }).judge(request);
    expect(response.answers.pick).toMatchObject({ method: 'top_logprobs', calibrated: true });
    expect(vllm.requests.at(-1)!.body).not.toHaveProperty('logprob_token_ids');
  });
});

describe("the judge's OpenAI-compatible backend: more than 26 options by label ids", () => {
  const fortyOptions = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`option ${i}`, null]));
  const request = {
    model: ID,
    state: 'Which option?',
    questions: { pick: { type: 'choice', criteria: fortyOptions } },
  };

  it("asks all 40 at once under labels that are distinct single tokens of the server's tokenizer", async () => {
    vllm = await startVllmFake();
    const backend = new OpenAIBackend({ baseUrl: vllm.baseUrl, upstreamModel: 'qwen-fake', id: ID, topLogprobs: 5 });
    expect(await backend.probe()).toBe('exact_label_ids');
    const before = vllm.requests.length;
    const { response } = await new JudgeEngine({ backend }).judge(request);
    expect(vllm.requests.length - before).toBe(1);
    const asked = vllm.requests.at(-1)!;
    const seed = asked.prompt.slice('<|im_start|>user\n'.length, asked.prompt.lastIndexOf('<|im_end|>'));
    const labels = labelsInPrompt(seed);
    expect(labels.slice(24, 28)).toEqual(['Y', 'Z', 'AA', 'AB']);
    const ids = asked.body.logprob_token_ids as number[];
    expect(new Set(ids).size).toBe(40);
    const own = hashTopLogprobs(seed, 100);
    const mass = labels.map((label) => Math.exp(own.find((t) => t.token === label)!.logprob));
    const total = mass.reduce((a, b) => a + b, 0);
    const answer = response.answers.pick as ChoiceAnswer;
    Object.keys(fortyOptions).forEach((option, i) => {
      expect(answer.probabilities[option]).toBeCloseTo(mass[i] / total, 12);
    });
    expect(answer).toMatchObject({ method: 'exact_label_ids', calibrated: true });
  });

  it('keeps grouping when the tokenizer has too few single-token labels', async () => {
    vllm = await startVllmFake({ splitCapitals: true });
    const backend = new OpenAIBackend({ baseUrl: vllm.baseUrl, upstreamModel: 'qwen-fake', id: ID });
    expect(await backend.probe()).toBe('exact_label_ids');
    const before = vllm.requests.length;
    const { response } = await new JudgeEngine({ backend }).judge(request);
    // 40 options in groups of at most 15: three groups and a runoff among their leaders.
    expect(vllm.requests.length - before).toBe(4);
    expect(Object.values((response.answers.pick as ChoiceAnswer).probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(
      1,
      12,
    );
  });
});

describe("the judge's OpenAI-compatible backend through a one-slot Ollama", () => {
  it('learns from the probe that it is an Ollama and sends one question at a time, state first', async () => {
    ollama = await startOllamaFake();
    const backend = new OpenAIBackend({ baseUrl: `${ollama.url}/v1`, upstreamModel: 'qwen3:8b', id: ID });
    expect(await backend.probe()).toBe('top_logprobs');
    expect(backend.concurrency).toBe(1);
    const { response } = await new JudgeEngine({ backend }).judge({
      model: ID,
      state: STATE,
      questions: twentyQuestions(),
    });
    expect(Object.keys(response.answers)).toHaveLength(20);
    const stats = (await (await fetch(`${ollama.url}/__stats`)).json()) as { maxInFlight: number; requests: number };
    expect(stats).toMatchObject({ maxInFlight: 1, requests: 21 });
    const seen = (await (
      await fetch(`${ollama.url}/__requests?match=Ticket%204411`)
    ).json()) as RecordedOllamaRequest[];
    expect(seen).toHaveLength(20);
    // Each prompt after the first finds the state in the slot's cache: only its question is evaluated.
    const stateTokens = Math.floor(renderState(STATE).length / CHARS_PER_TOKEN);
    expect(seen[0].cachedTokens).toBeLessThan(stateTokens);
    for (const request of seen.slice(1)) expect(request.cachedTokens).toBeGreaterThanOrEqual(stateTokens);
  });

  it('a concurrency set by the operator is kept, Ollama or not', async () => {
    ollama = await startOllamaFake();
    const backend = new OpenAIBackend({
      baseUrl: `${ollama.url}/v1`,
      upstreamModel: 'qwen3:8b',
      id: ID,
      concurrency: 3,
    });
    await backend.probe();
    expect(backend.concurrency).toBe(3);
  });
});
