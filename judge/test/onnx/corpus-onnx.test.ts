// Batch independence on the real corpus, through the HTTP server with the local ONNX backend on a generated
// shared-prefix model: every question's probabilities are the same (≤ 1e-4) asked alone or with its case.
// Order per case: the first question alone on a cold state (single pass), then the whole case (one batch over the
// cached state), then every other question alone (cached state, batch of one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, SystemOneResponse } from '../../src/protocol/types';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { loadCorpus } from '../helpers/repo';
import { generate, tempDir } from './fixtures';

const KEY = 'onnx-corpus-key-0123456789';
const MODEL = 'judge-onnx-tiny-2026-11-01';

function probabilities(answer: Answer): number[] {
  return answer.type === 'noul' ? [answer.noul] : Object.values(answer.probabilities);
}

describe('JevBench-240 through the server on the local ONNX backend', () => {
  const tmp = tempDir('onnx-corpus-');
  let server: JudgeServer;

  beforeAll(async () => {
    // A tokenizer whose merges are learned from the corpus itself costs about as many tokens as a real one.
    const trainingText = loadCorpus()
      .map(
        (c) =>
          `${typeof c.state === 'string' ? c.state : JSON.stringify(c.state, null, 2)}\n${JSON.stringify(c.questions)}`,
      )
      .join('\n')
      .slice(0, 100_000);
    const { dir } = generate(tmp.path, 'model', {
      seed: 240,
      layout: 'shared-prefix',
      maxPositions: 8192,
      hidden: 16,
      heads: 2,
      layers: 1,
      tokenizer: { trainingText, merges: 1000 },
    });
    server = await startJudgeServer({
      apiKeys: [KEY],
      backend: { kind: 'onnx', models: [{ id: MODEL, dir, releaseDate: '2026-11-01' }], intraOpNumThreads: 1 },
      log: () => undefined,
    });
  });

  afterAll(async () => {
    await server?.close();
    tmp.remove();
  });

  async function ask(state: unknown, questions: Record<string, unknown>): Promise<SystemOneResponse> {
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'jev-latest', state, questions }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${response.status} ${text}`);
    return JSON.parse(text) as SystemOneResponse;
  }

  it('answers each question the same alone as with its case (≤ 1e-4)', async () => {
    const corpus = loadCorpus();
    expect(corpus).toHaveLength(240);
    let compared = 0;
    let worst = 0;
    for (const c of corpus) {
      const names = Object.keys(c.questions);
      const alone: Record<string, Answer> = {};
      const first = await ask(c.state, { [names[0]]: c.questions[names[0]] });
      alone[names[0]] = first.answers[names[0]];
      const together = await ask(c.state, c.questions);
      expect(together.model).toBe(MODEL);
      expect(Object.keys(together.answers)).toEqual(names);
      // The state was cached by the first call: the whole case cost only its questions' tokens.
      expect(together.usage.input_tokens).toBeLessThan(first.usage.input_tokens * names.length);
      for (const name of names.slice(1))
        alone[name] = (await ask(c.state, { [name]: c.questions[name] })).answers[name];
      for (const name of names) {
        const a = probabilities(alone[name]);
        const b = probabilities(together.answers[name]);
        expect(a).toHaveLength(b.length);
        a.forEach((p, i) => (worst = Math.max(worst, Math.abs(p - b[i]))));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(240);
    expect(worst).toBeLessThanOrEqual(1e-4);
  }, 600_000);
});
