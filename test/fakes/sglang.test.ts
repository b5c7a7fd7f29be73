// The fake SGLang (its /generate shape and limits), and the judge's OpenAI-compatible backend on SGLang's native
// /generate: the probe finds it (GET /get_model_info) and reads every label by its own token id.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend } from '../../judge/src/backends/openai';
import { JudgeEngine } from '../../judge/src/engine/engine';
import type { ChoiceAnswer } from '../../judge/src/protocol/types';
import { startJudgeServer, type JudgeServer } from '../../judge/src/server';
import { hashTopLogprobs, labelsInPrompt } from '../../judge/test/fakes/openai-logprobs';
import { startSglangFake, type SglangFake } from './sglang';
import { postJson } from './http-util';

const ID = 'judge-openai-qwen-2026-01-01';
const KEY = 'sglang-test-key-abcdef';
let sglang: SglangFake | undefined;
let server: JudgeServer | undefined;
afterEach(async () => {
  await server?.close();
  await sglang?.close();
  sglang = server = undefined;
});

describe('the fake SGLang', () => {
  it('/generate without text or input_ids is its 400; unknown fields are ignored', async () => {
    sglang = await startSglangFake();
    expect(await postJson(`${sglang.root}/generate`, { sampling_params: { max_new_tokens: 1 } })).toEqual({
      status: 400,
      body: { error: { message: 'Either text, input_ids or input_embeds should be provided.' } },
    });
    const ok = await postJson(`${sglang.root}/generate`, { text: '(A) x\n(B) y\nAnswer: (', no_such_field: 1 });
    expect(ok.status).toBe(200);
    expect(ok.body.meta_info).toMatchObject({ prompt_tokens: 6, completion_tokens: 1, cached_tokens: 0 });
  });

  it('returns the named ids in the order asked as [logprob, id, text], and the radix cache in cached_tokens', async () => {
    sglang = await startSglangFake();
    const text = `${'state '.repeat(40)}\n(A) one\n(B) two\nAnswer: (`;
    const [a, b, z] = await Promise.all(
      ['A', 'B', 'Z'].map(async (label) => {
        const { body } = await postJson(`${sglang!.root}/tokenize`, { prompt: label, add_special_tokens: false });
        return (body.tokens as number[])[0];
      }),
    );
    const { body } = await postJson(`${sglang.root}/generate`, {
      text,
      sampling_params: { max_new_tokens: 1, temperature: 0 },
      return_logprob: true,
      token_ids_logprob: [z, b, a],
      return_text_in_logprobs: true,
    });
    const own = hashTopLogprobs(text, 100);
    const lp = (token: string) => own.find((t) => t.token === token)!.logprob;
    const meta = body.meta_info as { output_token_ids_logprobs: unknown[][]; cached_tokens: number };
    expect(meta.output_token_ids_logprobs[0]).toEqual([
      [-999999999, z, 'Z'],
      [lp('B'), b, 'B'],
      [lp('A'), a, 'A'],
    ]);
    const again = await postJson(`${sglang.root}/generate`, { text: text.replace('two', 'three') });
    expect((again.body.meta_info as { cached_tokens: number }).cached_tokens).toBeGreaterThan(40);
  });
});

describe("the judge's OpenAI-compatible backend on SGLang's /generate", () => {
  const twentyOptions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`option ${i}`, null]));
  const request = {
    model: ID,
    state: 'Which option?',
    questions: { pick: { type: 'choice', criteria: twentyOptions } },
  };

  it("probes it first and answers the fake's own label probabilities, outside the top-k too", async () => {
    sglang = await startSglangFake();
    const backend = new OpenAIBackend({
      baseUrl: sglang.baseUrl,
      upstreamModel: 'qwen-fake',
      id: ID,
      groupSize: 20,
      topLogprobs: 5,
    });
    expect(await backend.probe()).toBe('exact_label_ids');
    expect(backend.scoringRoute).toBe('sglang');
    server = await startJudgeServer({ apiKeys: [KEY], backend, log: () => undefined });
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    const listed = (await models.json()) as { models: { name: string; scoring?: unknown }[] };
    expect(listed.models.find((m) => m.name === ID)?.scoring).toEqual({ method: 'exact_label_ids', calibrated: true });

    const { response, upstream } = await new JudgeEngine({ backend }).judge(request);
    const asked = sglang.requests.at(-1)!;
    expect(asked.route).toBe('/generate');
    expect((asked.body.token_ids_logprob as number[]).length).toBe(20);
    const text = asked.body.text as string;
    const labels = labelsInPrompt(text);
    const own = hashTopLogprobs(text, 100);
    const mass = labels.map((label) => Math.exp(own.find((t) => t.token === label)!.logprob));
    const total = mass.reduce((x, y) => x + y, 0);
    const answer = response.answers.pick as ChoiceAnswer;
    Object.keys(twentyOptions).forEach((option, i) => {
      expect(answer.probabilities[option]).toBeCloseTo(mass[i] / total, 12);
    });
    expect(answer).toMatchObject({ method: 'exact_label_ids', calibrated: true });
    expect(answer.coverage).toBeCloseTo(total, 12);
    expect(upstream).toEqual({
      promptTokens: Math.ceil(text.length / 4),
      cachedTokens: asked.cachedTokens,
      outputTokens: 1,
    });
  });

  it('an SGLang that ignores token_ids_logprob is read by the top-k of its OpenAI-compatible route', async () => {
    sglang = await startSglangFake({ tokenIdsLogprob: 'ignored' });
    const backend = new OpenAIBackend({ baseUrl: sglang.baseUrl, upstreamModel: 'qwen-fake', id: ID, groupSize: 20 });
    expect(await backend.probe()).toBe('top_logprobs');
    expect(backend.scoringRoute).toBe('chat');
    const { response } = await new JudgeEngine({ backend }).judge(request);
    expect(response.answers.pick).toMatchObject({ method: 'top_logprobs', calibrated: true });
    expect(sglang.requests.at(-1)!.route).toBe('/v1/chat/completions');
  });
});
